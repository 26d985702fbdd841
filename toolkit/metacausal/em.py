"""Hard EM over K linear mechanisms with Laplace noise; each mechanism's direction is the one whose residuals look
more Laplacian (lower Anderson-Darling A^2). The fast engine: the whole restart loop runs compiled.

A mechanism is (slope, intercept, scale b, direction): direction 0 reads y = slope*x + intercept + e, direction 1
reads x = slope*y + intercept + e, with e ~ Laplace(0, b).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from toolkit.metacausal.anderson import ad_statistic
from toolkit.metacausal.lad import lad_line

LOG_FLOOR = math.log(1e-8)
TOL = 1e-2
WEIGHT_FLOOR = 1e-6


@dataclass
class MechanismFit:
    """The best of a set of EM restarts at one K'."""

    k: int
    slope: np.ndarray
    intercept: np.ndarray
    scale: np.ndarray
    direction: np.ndarray
    active: np.ndarray
    labels: np.ndarray
    counts: np.ndarray
    score: float


def em_iterations(k: int) -> int:
    return 5 if k < 3 else 10


@njit(cache=True, error_model="numpy")
def residuals_of(x, y, slope, intercept, direction, out):
    for i in range(x.shape[0]):
        for k in range(slope.shape[0]):
            if direction[k] == 0:
                out[i, k] = y[i] - (slope[k] * x[i] + intercept[k])
            else:
                out[i, k] = x[i] - (slope[k] * y[i] + intercept[k])


@njit(cache=True, error_model="numpy")
def e_step(x, y, slope, intercept, scale, direction, resid, weights, labels):
    """Residuals, Laplace responsibilities (no mixing weights) and argmax labels."""
    residuals_of(x, y, slope, intercept, direction, resid)
    n, kk = resid.shape
    for i in range(n):
        total = 0.0
        for k in range(kk):
            p = np.exp(-abs(resid[i, k]) / scale[k]) / (2.0 * scale[k])
            weights[i, k] = p
            total += p
        total = max(total, 1e-20)
        best = 0
        for k in range(kk):
            weights[i, k] /= total
            if weights[i, k] > weights[i, best]:
                best = k
        labels[i] = best


@njit(cache=True, error_model="numpy")
def _fit_direction(cause, effect, w, labels, k, slope0):
    """Weighted LAD line effect ~ cause; A^2 and mean |residual| over the points labelled k."""
    s, a, _ = lad_line(cause, effect, w, slope0)
    m = 0
    for i in range(labels.shape[0]):
        if labels[i] == k:
            m += 1
    r = np.empty(m)
    j = 0
    mean_abs = 0.0
    for i in range(labels.shape[0]):
        if labels[i] == k:
            r[j] = effect[i] - (s * cause[i] + a)
            mean_abs += abs(r[j])
            j += 1
    return s, a, mean_abs / max(m, 1), ad_statistic(r, 0.0)


@njit(cache=True, error_model="numpy")
def run_em(x, y, slope, intercept, scale, direction, iterations, tol):
    """EM from the given start (arrays updated in place); returns (labels, counts, score)."""
    n = x.shape[0]
    kk = slope.shape[0]
    resid = np.empty((n, kk))
    weights = np.empty((n, kk))
    labels = np.empty(n, np.int64)
    w = np.empty(n)
    converged = False
    for it in range(iterations + 1):
        e_step(x, y, slope, intercept, scale, direction, resid, weights, labels)
        if converged or it == iterations:
            break
        converged = True
        for k in range(kk):
            wsum = 0.0
            count = 0
            for i in range(n):
                w[i] = weights[i, k]
                wsum += w[i]
                if labels[i] == k:
                    count += 1
            if not (wsum > WEIGHT_FLOOR and count > 2):
                continue
            cause = x if direction[k] == 0 else y
            effect = y if direction[k] == 0 else x
            s1, a1, b1, ad1 = _fit_direction(cause, effect, w, labels, k, slope[k])
            back = 1.0 / slope[k] if slope[k] != 0.0 else 0.0
            s2, a2, b2, ad2 = _fit_direction(effect, cause, w, labels, k, back)
            if ad1 < ad2:
                s, a, b = s1, a1, b1
            else:
                s, a, b = s2, a2, b2
                direction[k] = 1 - direction[k]
            if abs(slope[k] - s) > tol or abs(intercept[k] - a) > tol:
                converged = False
            slope[k] = s
            intercept[k] = a
            scale[k] = max(b, 1e-8)
    counts = np.zeros(kk, np.int64)
    for i in range(n):
        counts[labels[i]] += 1
    score = 0.0
    log_floor = np.log(1e-8)
    for i in range(n):
        k = labels[i]
        lp = -abs(resid[i, k]) / scale[k] - np.log(2.0 * scale[k])
        score += max(lp, log_floor)
    return labels, counts, score


@njit(cache=True, error_model="numpy")
def all_restarts(x, y, starts, iterations, tol):
    """Run EM from every pair-of-points start (R x K x 2 indices); final (slope, intercept, scale, direction) of
    each restart as an R x K x 4 array, and each restart's score."""
    r_count, kk, _ = starts.shape
    out = np.empty((r_count, kk, 4))
    scores = np.empty(r_count)
    for r in range(r_count):
        slope = np.empty(kk)
        intercept = np.empty(kk)
        scale = np.ones(kk)
        direction = np.zeros(kk, np.int64)
        for k in range(kk):
            i0 = starts[r, k, 0]
            i1 = starts[r, k, 1]
            slope[k] = (y[i1] - y[i0]) / (x[i1] - x[i0])
            intercept[k] = y[i0] - slope[k] * x[i0]
        _, _, score = run_em(x, y, slope, intercept, scale, direction, iterations, tol)
        for k in range(kk):
            out[r, k, 0] = slope[k]
            out[r, k, 1] = intercept[k]
            out[r, k, 2] = scale[k]
            out[r, k, 3] = direction[k]
        scores[r] = score
    return out, scores


def assign(x: np.ndarray, y: np.ndarray, params: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(residuals N x K, responsibilities N x K, labels) of the points under mechanisms `params` (K x 4)."""
    n, k = x.shape[0], params.shape[0]
    resid, weights, labels = np.empty((n, k)), np.empty((n, k)), np.empty(n, np.int64)
    e_step(x, y, params[:, 0].copy(), params[:, 1].copy(), params[:, 2].copy(), params[:, 3].astype(np.int64),
           resid, weights, labels)
    return resid, weights, labels


def as_fit(x: np.ndarray, y: np.ndarray, params: np.ndarray, score: float) -> MechanismFit:
    _, _, labels = assign(x, y, params)
    counts = np.bincount(labels, minlength=params.shape[0])
    return MechanismFit(params.shape[0], params[:, 0].copy(), params[:, 1].copy(), params[:, 2].copy(),
                        params[:, 3].astype(np.int64), counts > 0, labels, counts, float(score))


def draw_starts(n: int, k: int, restarts: int, rng: np.random.Generator) -> np.ndarray:
    """K disjoint random point pairs per restart, drawn in the benchmark's order."""
    return np.stack([rng.choice(n, size=(k, 2), replace=False) for _ in range(restarts)]).astype(np.int64)


def restarts_fast(x: np.ndarray, y: np.ndarray, k: int, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return all_restarts(np.ascontiguousarray(x, np.float64), np.ascontiguousarray(y, np.float64), starts,
                        em_iterations(k), TOL)


def fit_fast(x: np.ndarray, y: np.ndarray, k: int, starts: np.ndarray) -> MechanismFit:
    """The best-scoring restart (the first one on ties)."""
    params, scores = restarts_fast(x, y, k, starts)
    best = int(np.argmax(scores))
    return as_fit(x, y, params[best], scores[best])
