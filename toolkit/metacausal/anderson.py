"""Anderson-Darling test for a Laplace distribution with estimated location (median) and scale (mean |deviation|).

Critical values are exp(r1 + r2 / n) from the tables the benchmark uses (Puig & Stephens). At the 0.95 level the
even-n row has r2 = 0.2053, the odd-n value, where its neighbouring even rows are all about 3.2: most likely a slip
in the source table. It is kept as is, since the benchmark's accept/reject decisions depend on it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

PROB_CLIP = 1e-15
# level: (r1, r2) for odd n and for even n
CRITICAL = {
    0.95: ((-0.017972, 0.2053), (-0.018564, 0.2053)),
}


def critical_value(n: int, level: float = 0.95) -> float:
    odd, even = CRITICAL[level]
    r1, r2 = even if n % 2 == 0 else odd
    if n == 0:
        return float("inf")  # r2 / 0: an empty sample is never rejected (as in the benchmark)
    return float(np.exp(r1 + r2 / n))


@njit(cache=True, error_model="numpy")
def ad_statistic_sorted(d, min_scale):
    """A^2 of ascending residuals `d` against Laplace(median, mean |d - median|)."""
    n = d.shape[0]
    if n == 0:
        return 0.0
    if n % 2 == 1:
        loc = d[n // 2]
    else:
        loc = 0.5 * (d[n // 2 - 1] + d[n // 2])
    scale = 0.0
    for i in range(n):
        scale += abs(d[i] - loc)
    scale = max(scale / n, min_scale)
    z = np.empty(n)
    for i in range(n):
        if d[i] < loc:
            zi = np.exp((d[i] - loc) / scale) / 2
        else:
            zi = 1 - np.exp((-d[i] + loc) / scale) / 2
        z[i] = min(max(zi, PROB_CLIP), 1 - PROB_CLIP)
    s = 0.0
    for i in range(n):
        s += (2.0 * (i + 1) - 1.0) / n * (np.log(z[i]) + np.log(1 - z[n - 1 - i]))
    return -n - s


@njit(cache=True, error_model="numpy")
def ad_statistic(residuals, min_scale):
    return ad_statistic_sorted(np.sort(residuals), min_scale)


def laplace_ad(residuals: np.ndarray, level: float = 0.95, min_scale: float = 0.0) -> tuple[bool, float, float]:
    """(accepted, A^2, critical value) for the hypothesis that `residuals` are Laplace distributed."""
    residuals = np.asarray(residuals, dtype=np.float64)
    a2 = float(ad_statistic(residuals, min_scale))
    crit = critical_value(residuals.shape[0], level)
    return bool(a2 <= crit), a2, crit
