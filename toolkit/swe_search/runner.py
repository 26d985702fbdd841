"""Solve one instance end to end: private clone, search, final choice, local resolution check, records."""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from toolkit.core.errors import InputError
from toolkit.core.records import make_record
from toolkit.swe_search.instances import Instance
from toolkit.swe_search.offline import OfflineProposer, OfflineValue, no_signal_note
from toolkit.swe_search.search import Episode, InstanceError, SearchConfig
from toolkit.swe_search.testrun import run_tests
from toolkit.swe_search.tree import UCTParams
from toolkit.swe_search.workspace import Workspace


def check_patch(ws: Workspace, inst: Instance, patch: str, timeout: float, python: str | None = None,
                log: list | None = None) -> dict[str, Any]:
    """The evaluation: apply `patch`, then `test_patch`, to the base commit in the private clone (no scratch
    files) and run FAIL_TO_PASS + PASS_TO_PASS."""
    scratch, ws.scratch_files = ws.scratch_files, {}
    try:
        if not ws.apply_on_base(patch):
            return {"resolved": False, "applied": False, "tests": {}}
        if not ws.apply(inst.test_patch, "test_patch"):  # the candidate touched the same test lines: unresolved
            return {"resolved": False, "applied": True, "tests": {}}
        report = run_tests(ws.root, inst.test_ids, test_cmd=inst.test_cmd, timeout=timeout, python=python, log=log)
        return {"resolved": all(report.passed(t) for t in inst.test_ids), "applied": True,
                "tests": dict(report.outcomes)}
    finally:
        ws.scratch_files = scratch
        ws.checkout(ws.base)


def validate(ws: Workspace, inst: Instance) -> None:
    """Fail early, naming the instance, when its test_patch cannot be applied."""
    if inst.test_patch.strip():
        problem = ws.check_patch(inst.test_patch, "test_patch")
        if problem:
            raise InstanceError(f"{inst.where or inst.instance_id}: instance {inst.instance_id}: {problem}")


def build_agents(llm, cfg: SearchConfig, debate: tuple[int, int]):
    if llm is None:
        return (OfflineProposer(seed=cfg.seed, undo=cfg.strategy == "linear-undo"),
                OfflineValue(unchanged_credit=cfg.path_credit), None, True)
    from toolkit.swe_search.llm_agents import ActionAgent, Discriminator, ValueAgent

    return ActionAgent(llm), ValueAgent(llm), Discriminator(llm, agents=debate[0], rounds=debate[1]), False


def solve(inst: Instance, cfg: SearchConfig, llm=None, *, model_name: str = "reason-swe-search",
          debate: tuple[int, int] = (5, 3)) -> tuple[dict[str, Any], dict[str, Any]]:
    """Returns (prediction record, tree record)."""
    start = time.perf_counter()
    proposer, valuer, discriminator, auto_test = build_agents(llm, cfg, debate)
    usage = getattr(llm, "usage", None)
    cost = (lambda: usage.prompt_tokens + usage.completion_tokens) if usage is not None else None
    where = f"{inst.where or inst.instance_id}: instance {inst.instance_id}"
    with Workspace(inst.repo, inst.base_commit, where) as ws:
        validate(ws, inst)
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
        note = no_signal_note(ep) if llm is None else ""
        final_commands: list[str] = []
        check = check_patch(ws, inst, patch, cfg.test_timeout, cfg.python, final_commands)
    seconds = round(time.perf_counter() - start, 3)
    summary = {"strategy": cfg.strategy, "expansions": ep.tree.size - 1, "finished_nodes": len(ep.finished),
               "chosen_node": chosen, "chosen_by": how, "chosen_finished": bool(finished and chosen is not None),
               "resolved": check["resolved"], "patch_applied": check["applied"], "note": note}
    prediction = make_record("swe.prediction", 1, instance_id=inst.instance_id, model_name_or_path=model_name,
                             model_patch=patch, **summary)
    tree = make_record("swe.tree", 1, instance_id=inst.instance_id, **summary, seconds=seconds,
                       config={**asdict(cfg), "uct": asdict(cfg.uct), "python": None}, debate=debate_log,
                       agent_tests=ep.test_ids, agent_commands=ep.commands, final_commands=final_commands,
                       final_tests=check["tests"], nodes=ep.tree_record())
    tree.pop("seconds")  # wall time varies; keep records reproducible
    return prediction, tree


def config_from(options: dict[str, Any]) -> SearchConfig:
    uct = UCTParams(c=options.get("c", 1.0), alpha=options.get("alpha", 200.0), beta=options.get("beta", 0.8),
                    gamma=options.get("gamma", 0.8), max_expansions=options.get("max_expansions", 3),
                    selector=options.get("selector", "reference"), c_scale=options.get("c_scale", 100.0),
                    bonus_depth=options.get("bonus_depth", 0), max_depth=options.get("max_depth", 10))
    return SearchConfig(strategy=options.get("strategy", "mcts"), iterations=options.get("iterations", 100), uct=uct,
                        max_finished=options.get("max_finished", 3), min_finished=options.get("min_finished", 2),
                        reward_threshold=options.get("reward_threshold", 100.0),
                        max_cost=options.get("max_cost", 0), test_timeout=options.get("test_timeout", 60.0),
                        seed=options.get("seed", 0), restarts=options.get("restarts", 5),
                        path_credit=options.get("path_credit", 0.5),
                        python=options.get("python"))


def solve_job(job: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | tuple[str, str]:
    """Picklable entry point for --workers / --ray: job = {instance, options, llm, record}. A problem with the
    instance comes back as ("error", message) so the other instances go on."""
    try:
        return _solve_job(job)
    except InstanceError as exc:
        return "error", str(exc)
    except InputError as exc:
        return "error", str(exc)


def _solve_job(job: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    llm = None
    if job.get("llm"):
        from toolkit.core.llm import from_uri

        llm = from_uri(job["llm"], record=job.get("record"))
    cfg = config_from(job["options"])
    debate = (job["options"].get("debate_agents", 5), job["options"].get("debate_rounds", 3))
    return solve(Instance.from_job(job["instance"]), cfg, llm, model_name=job.get("model_name", "reason-swe-search"),
                 debate=debate)
