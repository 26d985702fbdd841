"""One episode: a nominal demo, or a perturbed one kept only if the task really failed.

Labels are true by construction: a nominal episode is kept only if every sub-task check and the
final success check pass; a perturbed episode only if the sub-tasks before the perturbed one pass,
the perturbed sub-task's own check fails, and the final success check fails. Otherwise the next
attempt draws another site/sign/scale; after `retries` the mode is reported as having no effect.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from toolkit.failgen.env import SubtaskResult, TaskEnv
from toolkit.failgen.modes import NOMINAL, Magnitudes, Perturbation


@dataclass
class Episode:
    task: str
    seed: int
    mode: str
    env: TaskEnv | None
    results: list[SubtaskResult]
    perturbation: Perturbation | None
    success: bool
    attempts: int
    seconds: float
    kept: bool
    final_poses: dict = field(default_factory=dict)
    joints: dict = field(default_factory=dict)

    @property
    def episode_id(self) -> str:
        return episode_id(self.task, self.seed, self.mode)

    @property
    def failed_subtask(self) -> int | None:
        return None if self.perturbation is None else self.perturbation.subtask

    @property
    def failed_keyframe(self) -> int | None:
        """Grid column of the perturbed keyframe (column 0 is the start frame)."""
        if self.perturbation is None or self.env is None:
            return None
        run = self.results[self.perturbation.subtask]
        return run.columns[min(self.perturbation.keyframe, len(run.columns) - 1)]


def episode_id(task: str, seed: int, mode: str) -> str:
    return f"{task}-s{seed}-{mode}"


def labels_hold(mode: str, results: list[SubtaskResult], success: bool, pert: Perturbation | None) -> bool:
    if mode == NOMINAL:
        return success and all(r.success for r in results)
    assert pert is not None
    before = all(r.success for r in results[:pert.subtask])
    return before and not results[pert.subtask].success and not success


def run_episode(task: str, seed: int, mode: str = NOMINAL, *, image_size: int = 128, render: bool = True,
                magnitudes: Magnitudes | None = None, retries: int = 3, video_every: int | None = None,
                grid_rows: tuple[str, ...] | None = None, future: str = "white") -> Episode:
    """Generate one episode; `kept` is False when the nominal demo failed or the mode had no effect."""
    start = time.perf_counter()
    mags = magnitudes or Magnitudes()
    tries = 1 if mode == NOMINAL else retries + 1
    env = None
    for attempt in range(tries):
        if env is not None:
            env.close()
        env = TaskEnv(task, seed, image_size=image_size, render=render, magnitudes=mags, video_every=video_every,
                      future=future, **({"grid_rows": tuple(grid_rows)} if grid_rows else {}))
        pert = None if mode == NOMINAL else env.perturbation(mode, attempt)
        results: list[SubtaskResult] = []
        for i in range(len(env.scene.subtasks)):
            results.append(env.run_subtask(i, pert if pert is not None and pert.subtask == i else None))
            if pert is not None and i < pert.subtask and not results[-1].success:
                break   # a sub-task before the perturbation failed on its own: this draw cannot be used
        success = env.success() if len(results) == len(env.scene.subtasks) else False
        if len(results) == len(env.scene.subtasks) and labels_hold(mode, results, success, pert):
            return Episode(task, seed, mode, env, results, pert, success, attempt + 1,
                           time.perf_counter() - start, True, env.object_poses(), env.world.joint_states())
    return Episode(task, seed, mode, env, results, pert, success, tries, time.perf_counter() - start, False,
                   env.object_poses(), env.world.joint_states())
