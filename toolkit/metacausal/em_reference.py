"""The reference engine: the same EM with each weighted L1 line fitted as a linear program
(scikit-learn's QuantileRegressor, HiGHS) and a loop Anderson-Darling statistic. Slow; kept to check the fast one.
"""

from __future__ import annotations

import warnings

import numpy as np

from toolkit.metacausal.anderson import PROB_CLIP
from toolkit.metacausal.em import TOL, WEIGHT_FLOOR, MechanismFit, em_iterations


def ad_statistic_loop(data: np.ndarray, min_scale: float = 0.0) -> float:
    """A^2 against Laplace(median, mean |deviation|), one point at a time."""
    n = data.shape[0]
    loc = np.median(data) if n else 0.0
    scale = max(np.sum(np.abs(data - loc)) / n, min_scale) if n else 1.0
    z = np.zeros(n)
    for i, d in enumerate(data):
        z[i] = np.exp((d - loc) / scale) / 2 if d < loc else 1 - np.exp((-d + loc) / scale) / 2
    z = np.sort(np.clip(z, PROB_CLIP, 1 - PROB_CLIP))
    rank = np.arange(1, n + 1)
    return float(-n - np.sum((2 * rank - 1) / n * (np.log(z) + np.log(1 - z[::-1]))))


def lad_line_lp(cause: np.ndarray, effect: np.ndarray, w: np.ndarray) -> tuple[float, float] | None:
    """(slope, intercept) of the weighted L1 line by linear programming; None when the solver gives up."""
    from toolkit.core.extras import require

    require("causal", "sklearn")
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import QuantileRegressor

    model = QuantileRegressor(quantile=0.5, alpha=0, fit_intercept=True, solver="highs")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        try:
            model.fit(cause[:, None], effect, sample_weight=w)
        except (ConvergenceWarning, TypeError):  # HiGHS can fail on weights spanning many magnitudes
            return None
    return float(model.coef_[0]), float(model.intercept_)


def _laplace_pdf(r: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.exp(-np.abs(r) / b) / (2 * b)


def em_reference(x: np.ndarray, y: np.ndarray, start: np.ndarray, iterations: int) -> MechanismFit:
    """One EM run from `start` (K x 4: slope, intercept, scale, direction)."""
    p = np.array(start, dtype=np.float64)
    k_count = p.shape[0]
    converged = False
    for it in range(iterations + 1):
        keep = p[:, 3] == 0
        xx = np.where(keep[None, :], x[:, None], y[:, None])
        yy = np.where(keep[None, :], y[:, None], x[:, None])
        resid = yy - (xx * p[:, 0] + p[:, 1])
        probs = _laplace_pdf(resid, p[:, 2])
        weights = probs / np.maximum(probs.sum(axis=1), 1e-20)[:, None]
        labels = np.argmax(weights, axis=1)
        if converged or it == iterations:
            break
        converged = True
        for k in range(k_count):
            w = weights[:, k]
            mine = labels == k
            if not (w.sum() > WEIGHT_FLOOR and mine.sum() > 2):
                continue
            fits = []
            for cause, effect in ((xx[:, k], yy[:, k]), (yy[:, k], xx[:, k])):
                line = lad_line_lp(cause, effect, w)
                if line is None:
                    break
                r = effect[mine] - (line[0] * cause[mine] + line[1])
                fits.append((line[0], line[1], float(np.mean(np.abs(r))), ad_statistic_loop(r)))
            if len(fits) < 2:
                continue
            keep_dir = fits[0][3] < fits[1][3]
            s, a, b, _ = fits[0] if keep_dir else fits[1]
            if abs(p[k, 0] - s) > TOL or abs(p[k, 1] - a) > TOL:
                converged = False
            p[k, :3] = s, a, max(b, 1e-8)
            if not keep_dir:
                p[k, 3] = 1 - p[k, 3]
    counts = np.bincount(labels, minlength=k_count)
    picked = resid[np.arange(len(x)), labels]
    logp = -np.abs(picked) / p[labels, 2] - np.log(2 * p[labels, 2])
    score = float(np.sum(np.maximum(logp, np.log(1e-8))))
    return MechanismFit(k_count, p[:, 0].copy(), p[:, 1].copy(), p[:, 2].copy(), p[:, 3].astype(np.int64),
                        counts > 0, labels, counts, score)


def restarts_reference(x: np.ndarray, y: np.ndarray, k: int, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Like the fast engine's restarts: R x K x 4 final mechanisms and R scores."""
    params, scores = [], []
    for pair in starts:
        i0, i1 = pair[:, 0], pair[:, 1]
        slope = (y[i1] - y[i0]) / (x[i1] - x[i0])
        start = np.column_stack([slope, y[i0] - slope * x[i0], np.ones(k), np.zeros(k)])
        fit = em_reference(x, y, start, em_iterations(k))
        params.append(np.column_stack([fit.slope, fit.intercept, fit.scale, fit.direction]))
        scores.append(fit.score)
    return np.array(params), np.array(scores)


def fit_reference(x: np.ndarray, y: np.ndarray, k: int, starts: np.ndarray) -> MechanismFit:
    """The best-scoring restart (the first one on ties)."""
    from toolkit.metacausal.em import as_fit

    params, scores = restarts_reference(x, y, k, starts)
    best = int(np.argmax(scores))
    return as_fit(x, y, params[best], scores[best])
