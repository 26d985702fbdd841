"""RANSAC-style EM starts: instead of K random point pairs, each restart picks K lines one after another, each
the best-supported of a batch of random point-pair lines among the points not yet explained.

Support is the number of points within a band around the line, measured perpendicular to it on standardised
(x, y), so steep (y -> x) and flat lines are treated alike. After a line is chosen its inliers are set aside and
the next line is sought among the rest; an overlapping crowd of mechanisms thus yields K distinct lines rather
than K draws that mostly land on the largest mechanism. Starts keep the point-pair form (R x K x 2 indices) that
both EM engines take: the chosen line passes through its two points.
"""

from __future__ import annotations

import numpy as np

CANDIDATES = 64  # random point-pair lines tried for each of the K lines of a restart
BAND = 0.05  # inlier half-width, in standard deviations of the standardised data


def _standardised(v: np.ndarray) -> np.ndarray:
    sd = v.std()
    return (v - v.mean()) / (sd if sd > 0 else 1.0)


def _pairs(pool: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """m pairs of distinct points of `pool` (m x 2 indices into the data)."""
    first = rng.integers(0, pool.size, m)
    second = (first + rng.integers(1, pool.size, m)) % pool.size
    return np.column_stack([pool[first], pool[second]])


def _support(u: np.ndarray, v: np.ndarray, pairs: np.ndarray, pool: np.ndarray, band: float) -> np.ndarray:
    """Points of `pool` within `band` of each pair's line (m x |pool| boolean)."""
    du = u[pairs[:, 1]] - u[pairs[:, 0]]
    dv = v[pairs[:, 1]] - v[pairs[:, 0]]
    norm = np.hypot(du, dv)
    norm[norm == 0] = np.inf  # coincident points: a line through nothing
    # distance of point p from the line through a with direction d: |d x (p - a)| / |d|
    cross = du[:, None] * (v[pool][None, :] - v[pairs[:, 0]][:, None]) \
        - dv[:, None] * (u[pool][None, :] - u[pairs[:, 0]][:, None])
    return np.abs(cross) / norm[:, None] <= band


def ransac_start(u: np.ndarray, v: np.ndarray, x: np.ndarray, k: int, rng: np.random.Generator,
                 candidates: int = CANDIDATES, band: float = BAND) -> np.ndarray:
    """K x 2 point indices: K lines chosen greedily by support, each among the points the earlier ones left."""
    n = u.size
    left = np.arange(n)
    chosen = np.empty((k, 2), np.int64)
    for j in range(k):
        pairs = _pairs(left, candidates, rng)
        # the EM engines start from the x -> y line through the two points: it needs two distinct x values
        pairs = pairs[x[pairs[:, 0]] != x[pairs[:, 1]]]
        if len(pairs) == 0:
            pairs = _pairs(np.arange(n), candidates, rng)
            pairs = pairs[x[pairs[:, 0]] != x[pairs[:, 1]]]
        inliers = _support(u, v, pairs, left, band)
        best = int(np.argmax(inliers.sum(axis=1)))
        chosen[j] = pairs[best]
        rest = left[~inliers[best]]
        needed = 2 * (k - j - 1)
        # keep enough points for the lines still to come; if the band took nearly everything, take all again
        left = rest if rest.size >= max(needed, 2) else np.setdiff1d(np.arange(n), chosen[: j + 1].ravel())
    return chosen


def ransac_starts(x: np.ndarray, y: np.ndarray, k: int, restarts: int, rng: np.random.Generator) -> np.ndarray:
    """R x K x 2 point indices, one RANSAC-chosen set of K lines per restart."""
    u, v = _standardised(np.asarray(x, np.float64)), _standardised(np.asarray(y, np.float64))
    return np.stack([ransac_start(u, v, x, k, rng) for _ in range(restarts)]).astype(np.int64)
