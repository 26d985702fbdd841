"""Compositionally structured representations, described by their kernels.

A representation is compositionally structured when the similarity of two inputs depends
only on which components they share. With C components the kernel is then a table
`sims[P]` over the 2^C overlap patterns P (bit c set = component c shared), and it
decomposes as K(x, x') = sum_{S subset of P} w_S with the Moebius weights
w_S = sum_{T subset of S} (-1)^{|S|-|T|} sims[T] (the weight of the conjunction S).

Built-in representations (rho = |P| / C is the fraction of shared components):
  disentangled   one-hot per component, concatenated: sims = rho
  conjunctive    one-hot of the whole combination: sims = [P = all]
  mixed          disentangled and conjunctive features side by side: (rho + [P = all]) / 2
  relu           infinite-width random ReLU layer on the disentangled input (arc-cosine
                 kernel of degree 1): (sin t + (pi - t) cos t) / pi with t = arccos rho
  rbf            Gaussian kernel on the disentangled input: exp(-gamma * (1 - rho))
  sims:a,b,...   similarity by number of shared components 0..C, given explicitly
"""

from __future__ import annotations

import numpy as np

from toolkit.core.errors import InputError

REPRESENTATIONS = ("disentangled", "conjunctive", "mixed", "relu", "rbf", "sims:...")


def popcount(n: int) -> int:
    return bin(n).count("1")


def sims_for(rep: str, components: int, gamma: float = 2.0) -> np.ndarray:
    """The similarity table over the 2^C overlap patterns for a named representation."""
    patterns = np.arange(2**components)
    shared = np.array([popcount(int(p)) for p in patterns], dtype=float)
    rho = shared / components
    full = (shared == components).astype(float)
    if rep == "disentangled":
        return rho
    if rep == "conjunctive":
        return full
    if rep == "mixed":
        return (rho + full) / 2
    if rep == "relu":
        t = np.arccos(np.clip(rho, -1.0, 1.0))
        return (np.sin(t) + (np.pi - t) * np.cos(t)) / np.pi
    if rep == "rbf":
        return np.exp(-gamma * (1.0 - rho))
    if rep.startswith("sims:"):
        try:
            by_count = [float(v) for v in rep[5:].split(",")]
        except ValueError:
            raise InputError(f"--rep {rep}: expected sims:s0,s1,...,sC with numbers") from None
        if len(by_count) != components + 1:
            raise InputError(f"--rep {rep}: needs {components + 1} similarities (0..{components} shared components)")
        return np.array([by_count[int(s)] for s in shared])
    raise InputError(f"unknown representation '{rep}' (known: {', '.join(REPRESENTATIONS)})")


def conjunction_weights(sims: np.ndarray) -> np.ndarray:
    """Moebius inversion over subsets: w_S = sum_{T subset S} (-1)^{|S\\T|} sims[T]."""
    n = len(sims)
    w = np.zeros(n)
    for s in range(n):
        t = s
        while True:
            w[s] += (-1) ** (popcount(s) - popcount(t)) * sims[t]
            if t == 0:
                break
            t = (t - 1) & s
    return w


def is_positive_semidefinite(sims: np.ndarray, sizes: tuple[int, ...], tol: float = 1e-9) -> bool:
    """Non-negative conjunction weights guarantee a valid kernel on every grid."""
    return bool((conjunction_weights(sims) >= -tol).all())
