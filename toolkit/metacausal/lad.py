"""Exact weighted least-absolute-deviations line fit: min over (a, b) of sum_i w_i |y_i - a - b x_i|.

Weighted-median descent (Wesolowsky's direct method for one regressor): the best line through a pivot point has
the weighted median slope of the lines to every other point (weights w_i |x_i - x_pivot|); that line passes through
a second point, which becomes the next pivot. The loop stops when turning about the new pivot gains nothing: the
line is then optimal for rotations about both of its points, which for two distinct x is the subgradient
condition of the convex objective, so the result is a global optimum (the LP's answer, not an approximation).
"""

from __future__ import annotations

import numpy as np
from numba import njit

MAX_PIVOTS = 200


@njit(cache=True)
def weighted_median_index(values, weights):
    """Index i whose values[i] minimises sum_j weights[j] |values[j] - v| (the lower weighted median).

    Weighted quickselect on the positive-weight entries: expected O(n), no full sort.
    """
    n = values.shape[0]
    idx = np.empty(n, np.int64)
    m = 0
    total = 0.0
    for i in range(n):
        if weights[i] > 0.0:
            idx[m] = i
            m += 1
            total += weights[i]
    if m == 0:
        return 0
    need = 0.5 * total
    lo, hi = 0, m  # the answer is among idx[lo:hi]; `need` is the weight still to cover inside that range
    while True:
        a, b, c = values[idx[lo]], values[idx[(lo + hi - 1) // 2]], values[idx[hi - 1]]
        p = max(min(a, b), min(max(a, b), c))  # median of three
        # three-way partition of idx[lo:hi] into < p, == p, > p
        lt, i, gt = lo, lo, hi
        w_lt = 0.0
        w_eq = 0.0
        eq_at = -1
        while i < gt:
            v = values[idx[i]]
            if v < p:
                w_lt += weights[idx[i]]
                idx[lt], idx[i] = idx[i], idx[lt]
                lt += 1
                i += 1
            elif v > p:
                gt -= 1
                idx[gt], idx[i] = idx[i], idx[gt]
            else:
                w_eq += weights[idx[i]]
                eq_at = idx[i]
                i += 1
        if w_lt >= need and lt > lo:
            hi = lt
        elif w_lt + w_eq >= need:
            return eq_at
        else:
            need -= w_lt + w_eq
            lo = gt
            if lo >= hi:  # rounding left a sliver of weight: the largest value is the median
                return eq_at


@njit(cache=True)
def lad_objective(x, y, w, intercept, slope):
    total = 0.0
    for i in range(x.shape[0]):
        total += w[i] * abs(y[i] - intercept - slope * x[i])
    return total


@njit(cache=True)
def _best_line_through(x, y, w, pivot, slopes, slope_weights):
    xp = x[pivot]
    yp = y[pivot]
    for i in range(x.shape[0]):
        dx = x[i] - xp
        if dx != 0.0 and w[i] > 0.0:
            slopes[i] = (y[i] - yp) / dx
            slope_weights[i] = w[i] * abs(dx)
        else:
            slopes[i] = 0.0
            slope_weights[i] = 0.0
    k = weighted_median_index(slopes, slope_weights)
    if slope_weights[k] == 0.0:  # every weighted point shares the pivot's x: a flat line through it is optimal
        return pivot, 0.0
    return k, slopes[k]


@njit(cache=True)
def lad_line(x, y, w, slope0):
    """(slope, intercept, objective) of the weighted LAD line, descending from a line of slope `slope0`."""
    n = x.shape[0]
    resid = np.empty(n)
    for i in range(n):
        resid[i] = y[i] - slope0 * x[i]
    pivot = weighted_median_index(resid, w)
    slope = slope0
    intercept = resid[pivot]
    best = lad_objective(x, y, w, intercept, slope)
    slopes = np.empty(n)
    slope_weights = np.empty(n)
    for step in range(MAX_PIVOTS):
        nxt, s = _best_line_through(x, y, w, pivot, slopes, slope_weights)
        a = y[pivot] - s * x[pivot]
        obj = lad_objective(x, y, w, a, s)
        # the first turn is always taken (the start is only intercept-optimal); later ones only if they gain
        if step > 0 and obj >= best - 1e-13 * (abs(best) + 1e-300):
            break
        slope, intercept, best = s, a, obj
        if nxt == pivot:
            break
        pivot = nxt
    return slope, intercept, best
