"""Detector-in-the-loop recovery on FailGen tasks (the paper's downstream use of AHA).

For each seed, a plan of injected failures is drawn once: every sub-task gets a failure
mode with probability `inject_rate` (only modes that apply at that sub-task). The episode
is then executed twice from the same scene and the same plan:

- without feedback: sub-tasks run one after another, failures go unnoticed;
- with feedback: after every sub-task the detector judges its grid (the start frame and the
  latest attempt of each sub-task so far, as a clean run would show them); on "No" the controller
  re-plans from the current state and retries (bounded). A failed sub-task that follows a
  grasp (pick/grasp/lift) backs up to that grasp first, since whatever went wrong has
  left the object out of the gripper (FailGen's retry plans from the current state).

Task success is FailGen's final check of the resulting scene.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.aha.prompt import split_answer
from toolkit.core.errors import InputError
from toolkit.core.records import make_record

Judge = Callable[[Any, str, str], str]  # (PIL grid, question, subtask) -> answer text
ORACLE = "oracle"  # a judge that reads FailGen's ground-truth sub-task check (the detector's upper bound)
GRASP_WORDS = re.compile(r"^(pick|grasp|grab|lift)\b", re.IGNORECASE)
FIRST_SEED = 2000  # default scenes: seeds the shipped detector was neither trained nor validated on


@dataclass
class LoopConfig:
    task: str
    episodes: int = 10
    inject_rate: float = 0.3
    seed: int = FIRST_SEED
    max_retries: int = 2
    image_size: int = 128  # FailGen's camera default; a detector brings the grids to its own geometry


def training_scene_overlap(cfg: LoopConfig, model_dirs: list[Path], allow: bool = False) -> list[tuple[str, int]]:
    """The loop's scenes (task, seed) that the detector was trained or validated on; an input error
    naming them unless `allow`. Directories that record no training scenes count as none."""
    from toolkit.aha.scenes import describe, overlap, read_scenes

    seen: set[tuple[str, int]] = set()
    for d in model_dirs:
        seen |= read_scenes(d) or set()
    found = overlap(((cfg.task, cfg.seed + k) for k in range(cfg.episodes)), seen)
    if found and not allow:
        raise InputError(f"scenes {describe(found)} ({len(found)} of {cfg.episodes}) were used to train or validate "
                         f"the detector: pick --seed outside them, or pass --allow-train-scenes")
    return found


def injection_plan(env, rate: float, seed: int) -> dict[int, Any]:
    """{sub-task index: Perturbation}, drawn from (task, seed) only, so both runs share it."""
    rng = random.Random(f"aha-loop/{env.task_name}/{seed}")
    plan: dict[int, Any] = {}
    modes = list(env.task.modes)
    for i in range(len(env.subtasks)):
        if rng.random() >= rate:
            continue
        rng.shuffle(modes)
        for mode in modes:
            found = next((p for p in _perturbations(env, mode) if p.subtask == i), None)
            if found is not None:
                plan[i] = found
                break
    return plan


def _perturbations(env, mode: str) -> list[Any]:
    out = []
    for attempt in range(4):
        try:
            out.append(env.perturbation(mode, attempt))
        except InputError:  # the mode has no site in this scene
            return []
    return out


def backup_to(subtasks: list[str], i: int) -> int:
    """Where to restart after sub-task i failed: the grasp right before it, else i itself."""
    if i > 0 and not GRASP_WORDS.match(subtasks[i]) and GRASP_WORDS.match(subtasks[i - 1]):
        return i - 1
    return i


def run_episode(cfg: LoopConfig, seed: int, judge: Judge | str | None,
                question: Callable[[str], str]) -> dict[str, Any]:
    """One execution of the task; `judge=None` runs without feedback, ORACLE with ground truth."""
    from toolkit.failgen import TaskEnv

    with TaskEnv(cfg.task, seed=seed, image_size=cfg.image_size, render=judge not in (None, ORACLE)) as env:
        plan = injection_plan(env, cfg.inject_rate, seed)
        events: list[dict[str, Any]] = []
        retries = calls = 0
        i = 0
        n = len(env.subtasks)
        attempts = [0] * n
        first = [True] * n
        while i < n:
            pert = plan.get(i) if first[i] else None
            first[i] = False
            result = env.run_subtask(i, pert)
            event = {"subtask": i, "attempt": result.attempt, "injected": pert.mode if pert else None,
                     "truth": bool(result.success)}
            if judge is None:
                events.append(event)
                i += 1
                continue
            if judge == ORACLE:
                answer = "Yes" if result.success else "No, the sub-task check failed"
            else:
                answer = judge(env.grid(i, latest_only=True), question(env.subtasks[i]), env.subtasks[i])
            calls += 1
            label, explanation = split_answer(answer)
            event.update(verdict=label, explanation=explanation)
            events.append(event)
            if label != "No" or attempts[i] >= cfg.max_retries:
                i += 1
                continue
            attempts[i] += 1
            retries += 1
            i = backup_to(env.subtasks, i)
        return {"success": bool(env.success()), "injected": {str(k): p.mode for k, p in sorted(plan.items())},
                "retries": retries, "detector_calls": calls, "events": events, "subtasks": env.subtasks}


def run_loop(cfg: LoopConfig, judge: Judge, question: Callable[[str], str],
             oracle: bool = False, train_overlap: int | None = None) -> Iterator[dict[str, Any]]:
    """Yield one aha.loop record per (seed, condition), then an aha.loop_summary record."""
    conditions: list[tuple[str, Judge | str | None]] = [("none", None), ("detector", judge)]
    if oracle:
        conditions.append(("oracle", ORACLE))
    wins = {name: 0 for name, _ in conditions}
    paired: list[tuple[bool, bool]] = []  # (success without feedback, with the detector) per scene
    injected_eps = 0
    retries = 0
    for k in range(cfg.episodes):
        seed = cfg.seed + k
        for condition, j in conditions:
            ep = run_episode(cfg, seed, j, question)
            wins[condition] += ep["success"]
            if condition == "none":
                alone = ep["success"]
            elif condition == "detector":
                paired.append((alone, ep["success"]))
            if condition == "detector":
                retries += ep["retries"]
            elif condition == "none":
                injected_eps += bool(ep["injected"])
            yield make_record("aha.loop", 1, task=cfg.task, seed=seed, feedback=condition,
                              inject_rate=cfg.inject_rate, **ep)
    n = max(cfg.episodes, 1)
    yield make_record("aha.loop_summary", 1, task=cfg.task, episodes=cfg.episodes, inject_rate=cfg.inject_rate,
                      seed=cfg.seed, episodes_with_injection=injected_eps,
                      success_without_feedback=wins["none"] / n, success_with_feedback=wins["detector"] / n,
                      gain_points=round(100 * (wins["detector"] - wins["none"]) / n, 2),
                      gain_ci95=bootstrap_gain_ci(paired, seed=cfg.seed),
                      success_with_oracle=wins["oracle"] / n if oracle else None,
                      retries=retries, max_retries=cfg.max_retries, image_size=cfg.image_size,
                      train_scene_overlap=train_overlap)


def bootstrap_gain_ci(paired: list[tuple[bool, bool]], seed: int = 0, draws: int = 2000) -> list[float] | None:
    """95% percentile interval, in points, of the gain (detector minus no feedback), resampling scenes."""
    if not paired:
        return None
    rng = random.Random(f"aha-loop-ci/{seed}")
    n = len(paired)
    gains = sorted(100 * sum(b - a for a, b in (paired[rng.randrange(n)] for _ in range(n))) / n
                   for _ in range(draws))
    return [round(gains[int(0.025 * draws)], 2), round(gains[int(0.975 * draws) - 1], 2)]


def vlm_judge(vlm, max_new_tokens: int = 48) -> Judge:
    def judge(image, question: str, subtask: str) -> str:
        if vlm.normalize is not None:  # the live grid has FailGen's default rows: the model may know another order
            question = vlm.normalize.question(question, subtask)
        return vlm.generate([vlm.fit(image, where=subtask)], [question], max_new_tokens=max_new_tokens)[0]

    return judge


def llm_judge(llm) -> Judge:
    from toolkit.core.vlm import pil_data_url

    def judge(image, question: str, subtask: str) -> str:
        messages = [{"role": "user", "content": [{"type": "text", "text": question},
                                                 {"type": "image_url", "image_url": {"url": pil_data_url(image)}}]}]
        return llm.complete(messages, n=1, temperature=0.0, max_tokens=128).text.strip()

    return judge
