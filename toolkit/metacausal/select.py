"""Choosing K: the benchmark's Anderson-Darling acceptance rule (`ad`, as the official script applies it: the
largest accepted K' wins), its lowest-mean-A^2 variant (`ad-min`), and information criteria on soft mixtures
(`bic`, `icl`, `ad+bic`), which always answer some K >= 1."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from toolkit.metacausal.anderson import laplace_ad
from toolkit.metacausal.em import MechanismFit, assign
from toolkit.metacausal.mixture import MixtureFit

SELECTIONS = ("ad", "ad-min", "bic", "icl", "ad+bic")
AD_RULES = ("ad", "ad-min")  # rules that choose a hard-EM fit (the others choose a mixture)
CORE_MARGIN = 0.4  # a core point's second-best weight is below (1 - margin) x its best
AD_LEVEL = 0.95


@dataclass
class AdCheck:
    accepted: bool
    mean_a2: float
    a2: list[float]  # per active mechanism, in mechanism order
    active: int


def core_points(weights: np.ndarray, labels: np.ndarray, n_active: int) -> np.ndarray:
    """Points whose best responsibility clearly beats the second best (all points when one mechanism is active)."""
    if n_active == 1:
        return np.ones(weights.shape[0], dtype=bool)
    best = weights[np.arange(weights.shape[0]), labels]
    second = weights.copy()
    second[np.arange(weights.shape[0]), labels] = -1.0
    return second.max(axis=1) < best * (1 - CORE_MARGIN)


def ad_check(x: np.ndarray, y: np.ndarray, fit: MechanismFit) -> AdCheck:
    """Every active mechanism's core residuals must pass the Laplace AD test."""
    params = np.column_stack([fit.slope, fit.intercept, fit.scale, fit.direction])
    resid, weights, labels = assign(x, y, params)
    n_active = int(fit.active.sum())
    core = core_points(weights, labels, n_active)
    resid, labels = resid[core], labels[core]
    results = [laplace_ad(resid[labels == k, k], AD_LEVEL, min_scale=1e-10)
               for k in range(fit.k) if fit.active[k]]
    a2 = [r[1] for r in results]
    return AdCheck(all(r[0] for r in results), float(np.mean(a2)), a2, n_active)


def select_ad(accepted: list[bool]) -> int | None:
    """The official script's rule: index of the largest accepted K'; None when none is accepted.

    Its loop compares each accepted K''s mean A^2 with `best_mean_A_sq`, which starts at infinity and is never
    updated, so every accepted K' replaces the one before it and the last one wins."""
    best = None
    for i, ok in enumerate(accepted):
        if ok:
            best = i
    return best


def select_ad_min(accepted: list[bool], mean_a2: list[float]) -> int | None:
    """Index of the accepted K' with the lowest mean A^2 (first on ties); None when none is accepted."""
    best, best_a2 = None, np.inf
    for i, (ok, a2) in enumerate(zip(accepted, mean_a2, strict=True)):
        if ok and a2 < best_a2:
            best, best_a2 = i, a2
    return best


def select(method: str, checks: list[AdCheck], mixtures: list[MixtureFit]) -> tuple[int | None, int]:
    """(index of the chosen K', K-hat) under `method`; K-hat is 0 only when `ad` accepts nothing."""
    if method in AD_RULES:
        accepted = [c.accepted for c in checks]
        i = select_ad(accepted) if method == "ad" else select_ad_min(accepted, [c.mean_a2 for c in checks])
        return i, (0 if i is None else checks[i].active)
    if method in ("bic", "icl"):
        scores = [getattr(m, method) for m in mixtures]
        i = int(np.argmin(scores))
        return i, mixtures[i].k
    if method == "ad+bic":
        accepted = [i for i, c in enumerate(checks) if c.accepted]
        pool = accepted or list(range(len(mixtures)))
        i = min(pool, key=lambda j: mixtures[j].bic)
        return i, mixtures[i].k
    raise ValueError(method)
