"""Bidirectionality index: where do newly correct CB plan squares appear, tick by tick?

For each tick after the first, a square is newly correct when the probe's CB class there matches the label
(a direction, not NEVER) and did not at the tick before. The index reports the share of those squares that
sit on or next to a box and on or next to a target, against the same shares for shuffled (random floor)
squares: plans growing from both ends (boxes and targets) show both shares above their shuffled baselines.
"""

from __future__ import annotations

import numpy as np


def near(mask: np.ndarray) -> np.ndarray:
    """(N, H, W) bool -> squares on or 4-adjacent to a True square."""
    out = mask.copy()
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    out[:, :, 1:] |= mask[:, :, :-1]
    out[:, :, :-1] |= mask[:, :, 1:]
    return out


def index(preds: np.ndarray, labels: np.ndarray, obs: np.ndarray, seed: int = 0) -> list[dict]:
    """preds (T, N, H, W) CB classes per tick, labels (N, H, W), obs (N, 7, H, W) -> one row per tick 1..T-1."""
    rng = np.random.default_rng(seed)
    boxes = near((obs[:, 2] + obs[:, 3]) > 0)
    targets = near((obs[:, 3] + obs[:, 5] + obs[:, 6]) > 0)
    floor = obs[:, 0] == 0
    rows = []
    for t in range(1, preds.shape[0]):
        correct_now = (preds[t] == labels) & (labels > 0)
        correct_before = (preds[t - 1] == labels) & (labels > 0)
        new = correct_now & ~correct_before
        n = int(new.sum())
        shuffled = np.zeros_like(new)
        for i in range(new.shape[0]):  # as many random floor squares per episode as newly correct ones
            k = int(new[i].sum())
            if k:
                cells = np.flatnonzero(floor[i])
                shuffled[i].flat[rng.choice(cells, min(k, len(cells)), replace=False)] = True
        rows.append({"tick": t, "newly_correct": n, "near_box": share(new, boxes), "near_target": share(new, targets),
                     "near_box_shuffled": share(shuffled, boxes), "near_target_shuffled": share(shuffled, targets)})
    return rows


def share(mask: np.ndarray, where: np.ndarray) -> float:
    return float((mask & where).sum() / max(int(mask.sum()), 1))
