"""Solve one instance end to end: private clone, search, final choice, local resolution check, records."""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from toolkit.core.records import make_record
from toolkit.swe_search.instances import Instance
from toolkit.swe_search.offline import OfflineProposer, OfflineValue
from toolkit.swe_search.search import Episode, SearchConfig
from toolkit.swe_search.testrun import run_tests
from toolkit.swe_search.tree import UCTParams
from toolkit.swe_search.workspace import Workspace


def check_patch(ws: Workspace, inst: Instance, patch: str, timeout: float) -> dict[str, Any]:
    """Apply `patch` to the base commit in the private clone and run FAIL_TO_PASS + PASS_TO_PASS."""
    if not ws.apply_on_base(patch):
        ws.checkout(ws.base)
        return {"resolved": False, "applied": False, "tests": {}}
    report = run_tests(ws.root, inst.test_ids, test_cmd=inst.test_cmd, timeout=timeout)
    ws.checkout(ws.base)
    return {"resolved": all(report.passed(t) for t in inst.test_ids), "applied": True,
            "tests": dict(report.outcomes)}


def build_agents(llm, cfg: SearchConfig, debate: tuple[int, int]):
    if llm is None:
        return OfflineProposer(seed=cfg.seed, undo=cfg.strategy == "linear"), OfflineValue(), None, True
    from toolkit.swe_search.llm_agents import ActionAgent, Discriminator, ValueAgent

    return ActionAgent(llm), ValueAgent(llm), Discriminator(llm, agents=debate[0], rounds=debate[1]), False


def solve(inst: Instance, cfg: SearchConfig, llm=None, *, model_name: str = "reason-swe-search",
          debate: tuple[int, int] = (5, 3)) -> tuple[dict[str, Any], dict[str, Any]]:
    """Returns (prediction record, tree record)."""
    start = time.perf_counter()
    proposer, valuer, discriminator, auto_test = build_agents(llm, cfg, debate)
    usage = getattr(llm, "usage", None)
    cost = (lambda: usage.prompt_tokens + usage.completion_tokens) if usage is not None else None
    with Workspace(inst.repo, inst.base_commit, inst.where or inst.instance_id) as ws:
        ep = Episode(inst, ws, cfg, proposer, valuer, auto_test=auto_test, cost=cost)
        ep.run()
        nodes, finished = ep.candidates()
        chosen, how, debate_log = None, "none", []
        if nodes:
            if discriminator is not None and finished and len(nodes) > 1:
                chosen, debate_log = discriminator.choose(ep, nodes)
                how = "debate" if chosen is not None else "mean-reward"
            if chosen is None:
                chosen = ep.best_by_mean_reward(nodes)
                how = how if how != "none" else "mean-reward"
        patch = ep.tree.info[chosen].patch if chosen is not None else ""
        check = check_patch(ws, inst, patch, cfg.test_timeout)
    seconds = round(time.perf_counter() - start, 3)
    summary = {"strategy": cfg.strategy, "expansions": ep.tree.size - 1, "finished_nodes": len(ep.finished),
               "chosen_node": chosen, "chosen_by": how, "chosen_finished": bool(finished and chosen is not None),
               "resolved": check["resolved"], "patch_applied": check["applied"]}
    prediction = make_record("swe.prediction", 1, instance_id=inst.instance_id, model_name_or_path=model_name,
                             model_patch=patch, **summary)
    tree = make_record("swe.tree", 1, instance_id=inst.instance_id, **summary, seconds=seconds,
                       config={**asdict(cfg), "uct": asdict(cfg.uct)}, debate=debate_log,
                       final_tests=check["tests"], nodes=ep.tree_record())
    tree.pop("seconds")  # wall time varies; keep records reproducible
    return prediction, tree


def config_from(options: dict[str, Any]) -> SearchConfig:
    uct = UCTParams(c=options.get("c", 1.0), alpha=options.get("alpha", 200.0), beta=options.get("beta", 0.8),
                    gamma=options.get("gamma", 0.8), max_expansions=options.get("max_expansions", 3))
    return SearchConfig(strategy=options.get("strategy", "mcts"), iterations=options.get("iterations", 100), uct=uct,
                        max_finished=options.get("max_finished", 3),
                        reward_threshold=options.get("reward_threshold", 100.0),
                        max_cost=options.get("max_cost", 0), test_timeout=options.get("test_timeout", 60.0),
                        seed=options.get("seed", 0))


def solve_job(job: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Picklable entry point for --workers / --ray: job = {instance, options, llm, record}."""
    llm = None
    if job.get("llm"):
        from toolkit.core.llm import from_uri

        llm = from_uri(job["llm"], record=job.get("record"))
    cfg = config_from(job["options"])
    debate = (job["options"].get("debate_agents", 5), job["options"].get("debate_rounds", 3))
    return solve(Instance.from_job(job["instance"]), cfg, llm, model_name=job.get("model_name", "reason-swe-search"),
                 debate=debate)
