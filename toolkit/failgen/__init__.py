"""FailGen on PyBullet: perturb scripted Panda demonstrations to make labelled failure data (AHA).

Needs the `sim` extra (pybullet); no torch. Pure numpy + pybullet + pillow.

Batch generation (what `reason failgen` runs)
    run_episode(task, seed, mode, image_size=128) -> Episode   one episode, kept only if labels hold
    episode_records(ep, out_dir, dir_field) -> (failgen.episode record, [aha.sample records])

Interactive API (for a caller that detects failures and re-plans, e.g. `reason aha loop`)
    env = TaskEnv("stack", seed=0, image_size=128)   # scene randomised by (task, seed); render=False: no images
    env.subtasks                      # [str] one description per sub-task
    env.paraphrases(i)                # the sub-task's alternative wordings
    p = env.perturbation("slip")      # a concrete Perturbation; p.subtask is where it applies
    r = env.run_subtask(0)            # plan sub-task 0 from the CURRENT state, execute, check
    r = env.run_subtask(1, p)         # ... with a failure mode injected (the caller decides where)
    r.success                         # ground-truth check of that sub-task on the resulting state
    grid = env.grid(1)                # PIL image: AHA grid for sub-task 1 (later cells white)
    question(env.subtasks[1])         # the AHA question for it
    r = env.retry_subtask(1)          # re-plan sub-task 1 from the current state and run it again
    env.subtask_success(i)            # re-check sub-task i's goal on the current state
    env.video                         # front-view frames, when built with video_every=N (physics steps)
    env.success(); env.object_poses(); env.close()      # also usable as a context manager
  Each run_subtask returns SubtaskResult(index, description, keyframes, columns, success, perturbation,
  attempt). Sub-task checks and the final check are ground truth from the simulator state.
  A retry re-reads object poses, so e.g. a cube that slipped is picked where it now lies: to recover
  from a failed pick-and-place, retry the pick sub-task first, then the place. The grid after a retry
  shows every keyframe executed so far (retries add columns), then white cells for sub-tasks not run.

Labels are true by construction: a perturbed episode is kept only if the sub-tasks before the injected
one pass their checks, the injected one fails its check, and the final task check fails; a nominal one
only if every check passes.

Catalogue
    TASKS (name -> Task with .modes), MODES (the eleven variant names), describe_tasks(), describe_modes()
"""

from __future__ import annotations

from toolkit.failgen.env import SubtaskResult, TaskEnv
from toolkit.failgen.episode import Episode, episode_id, run_episode
from toolkit.failgen.modes import DESCRIPTIONS, MODES, NOMINAL, Magnitudes, Perturbation
from toolkit.failgen.prompts import answer, explanation, question
from toolkit.failgen.tasks import TASKS


def episode_records(*args, **kwargs):
    from toolkit.failgen.output import episode_records as _records

    return _records(*args, **kwargs)


def describe_tasks() -> list[dict]:
    """Task name, summary, sub-task descriptions (seed 0) and applicable modes, without simulating."""
    return [{"task": name, "summary": task.summary, "subtasks": list(task.steps), "modes": list(task.modes)}
            for name, task in TASKS.items()]


def describe_modes() -> list[dict]:
    return [{"mode": m, "description": DESCRIPTIONS[m], "tasks": [t for t, task in TASKS.items() if m in task.modes]}
            for m in MODES]


__all__ = [
    "TaskEnv", "SubtaskResult", "Episode", "run_episode", "episode_id", "episode_records", "MODES", "NOMINAL",
    "DESCRIPTIONS", "Magnitudes", "Perturbation", "TASKS", "question", "answer", "explanation",
    "describe_tasks", "describe_modes",
]
