"""Linear switching-mechanism problems, drawn in the same order as the paper's benchmark generator.

Each mechanism is a line with Laplace noise in its causal direction; direction 1 swaps the columns (y causes x).
Parameters are always given in the mechanism's own direction: effect = slope * cause + intercept + Laplace(0, b).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

SAMPLES_PER_MECHANISM = 500
SLOPE_RANGE = (0.2, 5.0)
INTERCEPT_ABS = 5.0
SCALE_RANGE = (0.1, 4.0)
CAUSE_ABS = 5.0


@dataclass
class LinearProblem:
    x: np.ndarray
    y: np.ndarray
    mechanism: np.ndarray  # hidden truth: which mechanism made each sample
    slope: np.ndarray
    intercept: np.ndarray
    scale: np.ndarray
    direction: np.ndarray  # 0: x -> y, 1: y -> x


def mechanism_counts(k: int, imbalance: float = 0.2, per_mechanism: int = SAMPLES_PER_MECHANISM) -> list[int]:
    """First k//2 mechanisms get (1+imbalance)x the samples, the middle one (odd k) the mean, the rest
    (1-imbalance)x."""
    counts = []
    for m in range(k):
        if m < k // 2:
            counts.append(math.floor(per_mechanism * (1 + imbalance)))
        elif 2 * m + 1 == k:
            counts.append(per_mechanism)
        else:
            counts.append(math.ceil(per_mechanism * (1 - imbalance)))
    return counts


def sample_linear(k: int, rng: np.random.Generator, imbalance: float = 0.2,
                  per_mechanism: int = SAMPLES_PER_MECHANISM) -> LinearProblem:
    """Draw k mechanisms and their samples; `rng` advances exactly as the benchmark's generator does."""
    slope = rng.uniform(*SLOPE_RANGE, size=k)
    signs = (rng.binomial(1, p=0.5, size=k) - 0.5) * 2
    slope = slope * signs
    intercept = rng.uniform(-INTERCEPT_ABS, INTERCEPT_ABS, size=k)
    scale = rng.uniform(*SCALE_RANGE, size=k)
    direction = rng.binomial(1, p=0.5, size=k)
    xs, ys, ids = [], [], []
    for m, n in enumerate(mechanism_counts(k, imbalance, per_mechanism)):
        cause = rng.uniform(-CAUSE_ABS, CAUSE_ABS, size=n)
        effect = cause * slope[m] + intercept[m] + rng.laplace(0.0, scale[m], size=n)
        if direction[m] == 1:
            cause, effect = effect, cause
        xs.append(cause)
        ys.append(effect)
        ids.append(np.full(n, m))
    return LinearProblem(np.concatenate(xs), np.concatenate(ys), np.concatenate(ids), slope, intercept, scale,
                         direction.astype(np.int64))
