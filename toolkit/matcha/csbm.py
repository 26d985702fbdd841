"""Contextual stochastic block model (CSBM) graphs with two balanced classes, drawn without an O(n²) loop.

Definition (as in the paper's generator): n nodes, the first half class 1 and the rest class 0; an unordered pair
is an edge with probability d·h/n inside a class and d·(1-h)/n across; x_i = m_c·u + z/√p with u = 𝟙/√p,
z ~ N(0, I), m_1 = μ + δ and m_0 = -μ + δ. The realised mean degree is about d/2 and edge homophily about h.

Instead of one Bernoulli draw per pair, each block (class 1 × class 1, class 0 × class 0, across) draws its edge
count from the binomial and then that many distinct pairs uniformly: the same distribution, O(E) work.
"""

from __future__ import annotations

import math

import numpy as np

from toolkit.core.errors import InputError
from toolkit.matcha.io import Graph


def check_params(n: int, p: int, d: float, h: float) -> None:
    if n < 2:
        raise InputError(f"--nodes {n}: need at least 2 nodes")
    if p < 1:
        raise InputError(f"--features {p}: need at least 1 feature")
    if not 0.0 <= h <= 1.0:
        raise InputError(f"--homophily {h}: must lie in [0, 1]")
    if not 0.0 <= d < n:
        raise InputError(f"--degree {d}: must be >= 0 and below the node count {n}")


def labels(n: int) -> np.ndarray:
    y = np.zeros(n, dtype=np.int64)
    y[: n // 2] = 1
    return y


def _triangle_pairs(k: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Decode linear indices k of the strict upper triangle of an m×m matrix (row-major) into (i, j), i < j."""
    start = lambda i: i * m - i * (i + 1) // 2  # noqa: E731 - index of (i, i+1)
    b = 2 * m - 1
    i = np.floor((b - np.sqrt(np.maximum(b * b - 8.0 * k, 0.0))) / 2).astype(np.int64)
    i = np.clip(i, 0, m - 2)
    for _ in range(3):  # float rounding can put i one off either way
        i = np.where(start(i) > k, i - 1, i)
        i = np.where(start(i + 1) <= k, i + 1, i)
    j = k - start(i) + i + 1
    return i, j


def _sample_block(rng: np.random.Generator, pairs: int, prob: float) -> np.ndarray:
    count = int(rng.binomial(pairs, min(max(prob, 0.0), 1.0))) if pairs > 0 else 0
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    return np.sort(rng.choice(pairs, size=count, replace=False, shuffle=False).astype(np.int64))


def csbm_edges(rng: np.random.Generator, y: np.ndarray, d: float, h: float) -> np.ndarray:
    """Undirected edges (i < j) of a CSBM graph as an int64 [2, E] array."""
    n = len(y)
    ones, zeros = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    p_in, p_out = d * h / n, d * (1.0 - h) / n
    parts = []
    for members in (ones, zeros):
        m = len(members)
        k = _sample_block(rng, m * (m - 1) // 2, p_in)
        if len(k):
            i, j = _triangle_pairs(k, m)
            parts.append(np.stack([members[i], members[j]]))
    k = _sample_block(rng, len(ones) * len(zeros), p_out)
    if len(k):
        a, b = ones[k // len(zeros)], zeros[k % len(zeros)]
        parts.append(np.stack([np.minimum(a, b), np.maximum(a, b)]))
    if not parts:
        return np.zeros((2, 0), dtype=np.int64)
    return np.concatenate(parts, axis=1)


def csbm_features(rng: np.random.Generator, y: np.ndarray, p: int, mu: float, delta_mu: float) -> np.ndarray:
    means = np.where(y == 1, mu + delta_mu, -mu + delta_mu).astype(np.float32)
    z = rng.standard_normal((len(y), p), dtype=np.float32)
    return ((z + means[:, None]) / np.float32(math.sqrt(p))).astype(np.float32)


def generate_csbm(n: int = 5000, p: int = 2000, mu: float = 0.03, delta_mu: float = 0.0, d: float = 5.0,
                  h: float = 0.8, seed: int = 0) -> Graph:
    check_params(n, p, d, h)
    rng = np.random.default_rng(seed)
    y = labels(n)
    edges = csbm_edges(rng, y, d, h)
    x = csbm_features(rng, y, p, mu, delta_mu)
    return Graph.from_undirected(x, edges, y)


def csbm_edges_loop(rng: np.random.RandomState, y: np.ndarray, d: float, h: float) -> np.ndarray:
    """Reference: one Bernoulli draw per unordered pair (the paper's O(n²) loop); for tests and the benchmark."""
    n = len(y)
    p_in, p_out = d * h / n, d * (1.0 - h) / n
    rows, cols = [], []
    for i in range(n - 1):
        for j in range(i + 1, n):
            if rng.binomial(1, p_in if y[i] == y[j] else p_out):
                rows.append(i)
                cols.append(j)
    return np.array([rows, cols], dtype=np.int64).reshape(2, -1)
