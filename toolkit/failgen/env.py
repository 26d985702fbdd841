"""TaskEnv: one task scene for one seed, executed sub-task by sub-task (the interactive API).

    env = TaskEnv("stack", seed=0)
    r = env.run_subtask(0)                       # nominal
    r = env.run_subtask(1, env.perturbation("slip"))
    img = env.grid(1)                             # PIL image for the AHA question about sub-task 1
    if not r.success: env.retry_subtask(1)        # plans again from the current state
    env.success(); env.close()
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

from toolkit.core.errors import InputError
from toolkit.failgen import skills as sk
from toolkit.failgen.grid import ROWS, compose_grid, trim_future
from toolkit.failgen.modes import MODES, Magnitudes, Perturbation, apply
from toolkit.failgen.tasks import TASKS, sites
from toolkit.failgen.world import VIEWS, World


@dataclass
class Column:
    """The three camera images taken at one keyframe (column of the grid)."""

    keyframe: str
    subtask: int            # -1 for the initial observation
    images: dict[str, np.ndarray] | None


@dataclass
class SubtaskResult:
    index: int
    description: str
    keyframes: list[str]
    columns: list[int]                  # grid column of each keyframe reached in this run
    success: bool                       # the sub-task's own check on the state it left
    perturbation: dict | None = None
    attempt: int = 0                    # 0 first run, 1.. retries


def scene_rng(task: str, seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(task.encode())])


def task_or_error(name: str):
    if name not in TASKS:
        raise InputError(f"--task {name}: unknown task; known tasks: {', '.join(TASKS)}")
    return TASKS[name]


@dataclass
class TaskEnv:
    task_name: str
    seed: int
    image_size: int = 128
    render: bool = True
    magnitudes: Magnitudes = field(default_factory=Magnitudes)
    video_every: int | None = None      # keep a front-view frame every N physics steps (for a GIF)
    grid_rows: tuple[str, ...] = ROWS   # view rows of the grid, top to bottom
    future: str = "white"               # future cells white, or "trim": dropped from the grid

    def __post_init__(self) -> None:
        self.task = task_or_error(self.task_name)
        self.world = World(self.image_size)
        self.scene = self.task.build(self.world, scene_rng(self.task_name, self.seed))
        self.world.settle(60)
        self.world.record_every = self.video_every if self.render else None
        self.initial_poses = self.world.object_poses()
        self.planned = [len(sk.plan(self.world, st)) for st in self.scene.subtasks]
        self.columns: list[Column] = []
        self.runs: list[SubtaskResult] = []
        self._capture("start", -1)

    # ---- description ---------------------------------------------------------------------------
    @property
    def subtasks(self) -> list[str]:
        """One description per sub-task (the first of its seed-shuffled paraphrases)."""
        return [st.texts[0] for st in self.scene.subtasks]

    def paraphrases(self, i: int) -> tuple[str, ...]:
        return self.scene.subtasks[i].texts

    @property
    def n_keyframes(self) -> int:
        """Grid columns of a nominal episode: the start frame plus every planned keyframe."""
        return 1 + sum(self.planned)

    # ---- execution -----------------------------------------------------------------------------
    def perturbation(self, mode: str, attempt: int = 0) -> Perturbation:
        """A concrete perturbation for `mode` in this scene, varied deterministically by `attempt`."""
        if mode not in MODES:
            raise InputError(f"--modes {mode}: unknown mode; known modes: {', '.join(MODES)}")
        where = sites(self.task, self.scene, mode)
        if not where:
            raise InputError(f"mode {mode} does not apply to task {self.task_name}; "
                             f"it applies: {', '.join(self.task.modes)}")
        rng = np.random.default_rng([self.seed, zlib.crc32(self.task_name.encode()), zlib.crc32(mode.encode()),
                                     attempt])
        i, j = where[(attempt + int(rng.integers(len(where)))) % len(where)]
        sign = float(rng.choice([-1.0, 1.0]))
        other = self.scene.others.get(self.scene.subtasks[i].obj) if mode == "wrong_object" else None
        return Perturbation(mode, i, j, sign, 1.0 + 0.25 * attempt, other)

    def run_subtask(self, i: int, perturbation: Perturbation | None = None) -> SubtaskResult:
        """Plan sub-task i from the current state, apply the perturbation (if any), execute, check."""
        st = self.scene.subtasks[i]
        obj = perturbation.other if perturbation is not None and perturbation.mode == "wrong_object" else None
        kfs = sk.plan(self.world, st, obj)
        if perturbation is not None:
            kfs = apply(kfs, perturbation, self.magnitudes)
        cols = []
        for kf in kfs:
            orn = self.world.target_orn if kf.hold_orn else kf.orn
            self.world.move(kf.pos, orn, slip_after=kf.slip_after)
            self.world.grip(kf.gripper)
            cols.append(self._capture(kf.name, i))
        attempt = sum(1 for r in self.runs if r.index == i)
        result = SubtaskResult(i, self.subtasks[i], [k.name for k in kfs], cols, sk.check(self.world, st),
                               perturbation.describe() if perturbation else None, attempt)
        self.runs.append(result)
        return result

    def retry_subtask(self, i: int) -> SubtaskResult:
        """Run sub-task i again, nominally, planned from the state the last run left."""
        return self.run_subtask(i)

    def run_all(self, perturbation: Perturbation | None = None) -> list[SubtaskResult]:
        return [self.run_subtask(i, perturbation if perturbation and perturbation.subtask == i else None)
                for i in range(len(self.scene.subtasks))]

    # ---- observation ---------------------------------------------------------------------------
    def subtask_success(self, i: int) -> bool:
        return sk.check(self.world, self.scene.subtasks[i])

    def success(self) -> bool:
        return bool(self.scene.success(self.world))

    def object_poses(self) -> dict[str, list[float]]:
        return self.world.object_poses()

    @property
    def video(self) -> list[np.ndarray]:
        """Front-view frames kept every `video_every` steps (empty unless video_every was set)."""
        return self.world.recorded

    def grid(self, i: int | None = None, latest_only: bool = False):
        """The AHA grid for sub-task i: columns up to the end of its latest run, later columns white.

        Columns of sub-tasks not run yet are drawn white (their planned nominal count), so a live
        grid has the same shape as the dataset's grid for the same episode. With `latest_only`,
        earlier attempts are left out: the start frame, then the latest run of each sub-task up to
        i, which is the grid a clean execution would have drawn (what a detector was trained on).
        """
        if not self.render:
            raise InputError("this environment was built with render=False; no images to draw")
        if latest_only and i is not None:
            latest = {r.index: r for r in self.runs if r.index <= i}
            shown = [0] + [c for k in sorted(latest) for c in latest[k].columns]
            later = sum(self.planned[k] for k in range(i + 1, len(self.planned)))
            return self._finish(compose_grid([self.columns[c].images for c in shown], len(shown) - 1,
                                             len(shown) + later, self.image_size, self.grid_rows))
        runs = [r for r in self.runs if r.index == i] if i is not None else self.runs
        upto = max(runs[-1].columns) if runs and runs[-1].columns else len(self.columns) - 1
        if i is None:
            upto = len(self.columns) - 1
        done = {r.index for r in self.runs}
        pending = sum(n for k, n in enumerate(self.planned) if k not in done)
        total = len(self.columns) + pending
        return self._finish(compose_grid([c.images for c in self.columns], upto, total, self.image_size,
                                         self.grid_rows))

    def _finish(self, grid):
        return trim_future(grid) if self.future == "trim" else grid

    def _capture(self, name: str, subtask: int) -> int:
        images = self.world.snapshot() if self.render else None
        self.columns.append(Column(name, subtask, images))
        return len(self.columns) - 1

    def close(self) -> None:
        self.world.close()

    def __enter__(self) -> TaskEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["TaskEnv", "SubtaskResult", "Column", "VIEWS"]
