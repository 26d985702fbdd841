"""Shared checks: a task's nominal demo succeeds and every applicable mode really makes it fail."""

from __future__ import annotations

from toolkit.failgen import NOMINAL, TASKS, run_episode
from toolkit.failgen.output import episode_records

NOMINAL_SEEDS = (0, 1, 2)


def check_nominal(task: str, seed: int) -> None:
    ep = run_episode(task, seed, NOMINAL, render=False)
    try:
        assert ep.kept, f"{task} seed {seed}: nominal demo failed"
        assert ep.env.success() is True
        assert all(r.success for r in ep.results)
        assert ep.failed_subtask is None and ep.failed_keyframe is None
    finally:
        ep.env.close()


def check_mode(task: str, mode: str, tmp_path, seed: int = 0) -> None:
    """The perturbed episode fails the final check, its failed sub-task's own check, and is labelled so."""
    ep = run_episode(task, seed, mode, render=False)
    try:
        assert ep.kept, f"{task}/{mode}: the mode had no effect in {ep.attempts} attempts"
        assert ep.env.success() is False                       # re-evaluated on the final state
        k = ep.failed_subtask
        assert ep.results[k].success is False
        assert all(r.success for r in ep.results[:k])
        assert ep.perturbation.mode == mode and ep.perturbation.subtask == k
        record, samples = episode_records(ep, tmp_path, str(tmp_path), images=False)
        assert record["success"] is False and record["mode"] == mode and record["failed_subtask"] == k
        assert record["failed_keyframe"] in record["subtask_keyframes"][k]
        assert [s["label"] for s in samples] == ["Yes"] * k + ["No"]
        assert samples[-1]["answer"].startswith("No, ") and samples[-1]["explanation"]
        assert all(s["answer"] == "Yes" and s["explanation"] == "" for s in samples[:-1])
    finally:
        ep.env.close()


def modes_of(task: str) -> list[str]:
    return list(TASKS[task].modes)
