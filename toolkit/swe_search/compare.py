"""Strategies against each other at equal node budgets: every (instance, strategy, seed, budget) is one run
of the offline agent, judged by the hidden tests (test_patch + FAIL_TO_PASS + PASS_TO_PASS).

Budget curves cost one run per (strategy, seed) for mcts / linear / linear-undo: a search stopped after b
expansions has built exactly the first b nodes of a longer one (selection and stopping depend only on the
tree so far), so each budget's answer is the final choice among those nodes. `restarts` splits its budget
into equal shares and is run once per budget. Test reports are cached per code state across the runs of an
instance, and hidden-test verdicts per patch.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from toolkit.core.records import make_record
from toolkit.swe_search.instances import Instance
from toolkit.swe_search.runner import build_agents, check_patch, config_from, validate
from toolkit.swe_search.search import Episode
from toolkit.swe_search.testrun import use_forked_pytest
from toolkit.swe_search.workspace import Workspace


def _added_lines(patch: str) -> set[str]:
    return {line[1:].strip() for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++")}


def trapped(ep: Episode, chosen: int | None, resolved: bool) -> bool:
    """The submitted state passes every test the agent could see yet fails the hidden ones (by outcomes, not
    by value: the offline value gives a pass on an unchanged execution path less than 100)."""
    if chosen is None or resolved:
        return False
    report = ep.report_at(chosen)
    return report is not None and bool(report.outcomes) and all(o == "passed" for o in report.outcomes.values())


def compare_instance(job: dict[str, Any]) -> list[dict[str, Any]]:
    """All runs of one instance: job = {instance, strategies, seeds, budgets, options}."""
    if job.get("forked", True):
        use_forked_pytest()
    inst = Instance.from_job(job["instance"])
    trap = _added_lines(inst.extra.get("trap_patch", ""))
    family = inst.extra.get("family", "")
    budgets = sorted(job["budgets"])
    cache: dict = {}
    verdicts: dict[str, bool] = {}
    out = []
    with Workspace(inst.repo, inst.base_commit, inst.instance_id) as ws:
        validate(ws, inst)

        def judge(patch: str) -> bool:
            if patch not in verdicts:
                verdicts[patch] = check_patch(ws, inst, patch, job["options"].get("test_timeout", 60.0))["resolved"]
            return verdicts[patch]

        def episode(strategy: str, seed: int, budget: int) -> Episode:
            cfg = config_from({**job["options"], "strategy": strategy, "seed": seed, "iterations": budget})
            proposer, valuer, _, _ = build_agents(None, cfg, (1, 1))
            ws.checkout(ws.base)
            ep = Episode(inst, ws, cfg, proposer, valuer, auto_test=True, cache=cache)
            ep.run()
            return ep

        for strategy in job["strategies"]:
            for seed in job["seeds"]:
                runs = [(b, episode(strategy, seed, b)) for b in budgets] if strategy == "restarts" else \
                    [(b, None) for b in budgets]
                longest = None if strategy == "restarts" else episode(strategy, seed, budgets[-1])
                for budget, ep in runs:
                    ep = ep or longest
                    limit = None if strategy == "restarts" else budget
                    nodes, finished = ep.candidates(limit)
                    chosen = ep.best_by_mean_reward(nodes, limit) if nodes else None
                    patch = ep.tree.info[chosen].patch if chosen is not None else ""
                    resolved = judge(patch)
                    used = min(ep.tree.size - 1, budget)
                    out.append(make_record(
                        "swe.compare", 1, instance_id=inst.instance_id, family=family, strategy=strategy,
                        seed=seed, budget=budget, resolved=resolved, expansions=used,
                        submitted=bool(patch.strip()), finished=finished,
                        trapped=trapped(ep, chosen, resolved), trap_edit=bool(trap) and trap <= _added_lines(patch)))
    return out


def mcnemar(pairs: list[tuple[bool, bool]]) -> tuple[int, int, float]:
    """(a-only wins, b-only wins, exact two-sided McNemar p) over paired outcomes."""
    b = sum(1 for x, y in pairs if x and not y)
    c = sum(1 for x, y in pairs if y and not x)
    n = b + c
    if n == 0:
        return b, c, 1.0
    k = min(b, c)
    p = 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return b, c, min(1.0, p)


def summarize(records: list[dict[str, Any]], target_budget: int = 50) -> dict[str, Any]:
    """Resolved counts per strategy x budget and per family, trap-escape rates, and McNemar of mcts against
    the best baseline at `target_budget` over (instance, seed) pairs."""
    by = defaultdict(dict)
    for r in records:
        by[(r["strategy"], r["budget"])][(r["instance_id"], r["seed"])] = r
    strategies = sorted({r["strategy"] for r in records}, key=["mcts", "linear", "linear-undo", "restarts"].index)
    budgets = sorted({r["budget"] for r in records})
    curves = {s: {b: sum(r["resolved"] for r in by[(s, b)].values()) for b in budgets} for s in strategies}
    runs = {s: {b: len(by[(s, b)]) for b in budgets} for s in strategies}
    families = sorted({r["family"] for r in records})
    per_family = {f: {s: sum(r["resolved"] for r in by[(s, target_budget)].values() if r["family"] == f)
                      for s in strategies} for f in families}
    family_runs = {f: len({(r["instance_id"], r["seed"]) for r in records if r["family"] == f}) for f in families}
    trap_runs = {s: [r for r in by[(s, target_budget)].values() if r["family"].startswith("trap")] for s in strategies}
    escape = {s: (round(sum(not r["trapped"] for r in rs) / len(rs), 4) if rs else None) for s, rs in trap_runs.items()}
    trap_resolved = {s: (round(sum(r["resolved"] for r in rs) / len(rs), 4) if rs else None)
                     for s, rs in trap_runs.items()}
    test = None
    baselines = [s for s in strategies if s != "mcts"]
    if "mcts" in strategies and baselines and target_budget in budgets:
        best = max(baselines, key=lambda s: curves[s][target_budget])
        keys = sorted(set(by[("mcts", target_budget)]) & set(by[(best, target_budget)]))
        pairs = [(by[("mcts", target_budget)][k]["resolved"], by[(best, target_budget)][k]["resolved"]) for k in keys]
        wins, losses, p = mcnemar(pairs)
        test = {"baseline": best, "budget": target_budget, "pairs": len(pairs), "mcts_only": wins,
                "baseline_only": losses, "p_value": float(f"{p:.4g}")}  # 4 significant digits: p can be tiny
    return {"curves": curves, "runs": runs, "per_family": per_family, "family_runs": family_runs,
            "trap_escape": escape, "trap_resolved": trap_resolved, "mcnemar": test}
