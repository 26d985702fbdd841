"""Numba kernels: kernel matrices over overlap patterns and the conjunction-wise decomposition.

Conjunctions are stored flat: subset S (a bitmask over components) owns the block
offsets[S] .. offsets[S] + prod_{c in S} sizes[c], indexed by the mixed-radix code of the
component values in S. The empty subset has one slot (the constant term).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def kernel_matrix(xa: np.ndarray, xb: np.ndarray, sims: np.ndarray) -> np.ndarray:
    """K[i, j] = sims[overlap pattern of xa[i] and xb[j]]."""
    na, nb, c = xa.shape[0], xb.shape[0], xa.shape[1]
    out = np.empty((na, nb))
    for i in range(na):
        for j in range(nb):
            p = 0
            for k in range(c):
                if xa[i, k] == xb[j, k]:
                    p |= 1 << k
            out[i, j] = sims[p]
    return out


def conjunction_layout(sizes: tuple[int, ...]) -> np.ndarray:
    """offsets[S] for every subset S, plus the total size at offsets[2^C]."""
    c = len(sizes)
    offsets = np.zeros(2**c + 1, dtype=np.int64)
    for s in range(2**c):
        block = 1
        for k in range(c):
            if s >> k & 1:
                block *= sizes[k]
        offsets[s + 1] = offsets[s] + block
    return offsets


@njit(cache=True)
def conjunction_code(row: np.ndarray, subset: int, sizes: np.ndarray) -> int:
    code, radix = 0, 1
    for k in range(row.shape[0]):
        if subset >> k & 1:
            code += row[k] * radix
            radix *= sizes[k]
    return code


@njit(cache=True)
def decompose(x_train: np.ndarray, alpha: np.ndarray, weights: np.ndarray, sizes: np.ndarray,
              offsets: np.ndarray) -> np.ndarray:
    """g_S(c) = w_S * sum_{i: x_i restricted to S = c} alpha_i, for every subset S and conjunction c."""
    g = np.zeros(offsets[-1])
    for s in range(weights.shape[0]):
        if weights[s] == 0.0:
            continue
        for i in range(x_train.shape[0]):
            g[offsets[s] + conjunction_code(x_train[i], s, sizes)] += weights[s] * alpha[i]
    return g


@njit(cache=True)
def evaluate(x: np.ndarray, g: np.ndarray, sizes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """f(x) = sum_S g_S(x restricted to S)."""
    n_subsets = offsets.shape[0] - 1
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        total = 0.0
        for s in range(n_subsets):
            total += g[offsets[s] + conjunction_code(x[i], s, sizes)]
        out[i] = total
    return out


@njit(cache=True)
def seen_conjunctions(x_train: np.ndarray, sizes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Mask over the flat conjunction slots: which conjunctions occur in the training inputs."""
    seen = np.zeros(offsets[-1], dtype=np.bool_)
    for s in range(offsets.shape[0] - 1):
        for i in range(x_train.shape[0]):
            seen[offsets[s] + conjunction_code(x_train[i], s, sizes)] = True
    return seen
