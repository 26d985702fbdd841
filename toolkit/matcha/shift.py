"""Structure and attribute shifts applied to any graph: homophily matching, edge dropping, a mean shift.

Homophily matching drops random heterophilous edges (to raise edge homophily) or homophilous ones (to lower it)
until the undirected edge homophily reaches the target, as done for Twitch and OGB-Arxiv targets.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from toolkit.core.errors import InputError
from toolkit.matcha.io import Graph


def match_homophily(graph: Graph, target: float, seed: int = 42) -> Graph:
    if not 0.0 <= target <= 1.0:
        raise InputError(f"--homophily {target}: must lie in [0, 1]")
    if graph.y is None:
        raise InputError("--homophily needs node labels (key 'y') to tell homophilous edges apart")
    und = graph.undirected()
    same = graph.y[und[0]] == graph.y[und[1]]
    n_homo, n_het = int(same.sum()), int((~same).sum())
    if n_homo + n_het == 0:
        raise InputError(f"--homophily {target}: the graph has no edges to drop")
    current = n_homo / (n_homo + n_het)
    rng = np.random.default_rng(seed)
    if math.isclose(target, current, abs_tol=1e-12):
        return graph
    if target > current:  # keep all homophilous edges, drop heterophilous ones
        if n_homo == 0:
            raise InputError(f"--homophily {target}: unreachable by dropping edges (no homophilous edges)")
        drop_from, keep = ~same, int(round(n_homo / target)) - n_homo
    else:
        if n_het == 0:
            raise InputError(f"--homophily {target}: unreachable by dropping edges (no heterophilous edges)")
        drop_from, keep = same, int(round(n_het / (1.0 - target))) - n_het
    idx = np.flatnonzero(drop_from)
    kept = idx[np.sort(rng.permutation(len(idx))[:max(keep, 0)])]
    mask = ~drop_from
    mask[kept] = True
    return graph.with_edges(und[:, mask])


def keep_edges(graph: Graph, fraction: float, seed: int = 42) -> Graph:
    if not 0.0 <= fraction <= 1.0:
        raise InputError(f"--keep-edges {fraction}: must lie in [0, 1]")
    und = graph.undirected()
    rng = np.random.default_rng(seed)
    kept = np.sort(rng.permutation(und.shape[1])[: int(round(fraction * und.shape[1]))])
    return graph.with_edges(und[:, kept])


def feature_shift(graph: Graph, delta: float) -> Graph:
    """Add δ·u with u = 𝟙/√F to every node (the CSBM attribute shift: class means μ+δ and −μ+δ along u)."""
    shift = np.float32(delta / math.sqrt(graph.num_features))
    return replace(graph, x=(graph.x + shift).astype(np.float32))
