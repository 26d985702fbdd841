"""How well predicted mechanisms match the true ones: Hungarian matching on line parameters."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

PARAM_TOL = 0.2


def in_direction(slope: float, intercept: float, flip: bool) -> tuple[float, float]:
    """The same line written the other way round (effect and cause swapped) when `flip`."""
    if not flip:
        return slope, intercept
    s = slope if abs(slope) > 1e-12 else 1e-12
    return 1.0 / s, -intercept / s


def match(true: np.ndarray, pred: np.ndarray) -> dict:
    """true/pred: K x 4 (slope, intercept, scale, direction). Lines are compared in the true mechanism's direction;
    a mechanism is recovered when slope and intercept are both within PARAM_TOL of its matched prediction."""
    kt, kp = len(true), len(pred)
    if kp == 0:
        return {"recovered": 0, "direction_right": 0, "true": kt}
    cost = np.empty((kt, kp))
    for i in range(kt):
        for j in range(kp):
            s, a = in_direction(pred[j, 0], pred[j, 1], pred[j, 3] != true[i, 3])
            cost[i, j] = max(abs(s - true[i, 0]), abs(a - true[i, 1]))
    rows, cols = linear_sum_assignment(cost)
    hit = cost[rows, cols] <= PARAM_TOL
    right = sum(1 for r, c, h in zip(rows, cols, hit, strict=True) if h and pred[c, 3] == true[r, 3])
    return {"recovered": int(hit.sum()), "direction_right": int(right), "true": kt}
