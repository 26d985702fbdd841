"""Numba kernels over the flat tree arrays: UCT selection, child bookkeeping, backpropagation.

The selection score of an expandable node s with parent p at depth d is (SWE-Search, eq. 3)

    V(s) + C * sqrt(ln N(p) / N(s)) + alpha * exp(-beta * (d - 1)) - gamma * sqrt(d)

where V(s) is the mean backpropagated value and N the visit counts. Unvisited nodes score +inf.
The root has no parent; its own visit count stands in for N(p). Selection is best-first over all
expandable nodes (not terminal, fewer than `max_expansions` children), ties to the lowest index.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def uct_score(node, parent, visits, value_sum, depth, c, alpha, beta, gamma):
    n = visits[node]
    if n == 0:
        return np.inf
    p = parent[node]
    total = visits[p] if p >= 0 else n
    mean = value_sum[node] / n
    explore = c * math.sqrt(math.log(max(total, 1)) / n)
    d = depth[node]
    return mean + explore + alpha * math.exp(-beta * (d - 1)) - gamma * math.sqrt(d)


@njit(cache=True)
def select_node(size, parent, visits, value_sum, depth, n_children, terminal, max_expansions,
                c, alpha, beta, gamma):
    """Index of the expandable node with the highest UCT score, or -1 when none is left.

    The depth terms are tabulated once per call (same operations, so bit-identical to uct_score)."""
    max_depth = 0
    for i in range(size):
        if depth[i] > max_depth:
            max_depth = depth[i]
    bonus = np.empty(max_depth + 1)
    penalty = np.empty(max_depth + 1)
    for d in range(max_depth + 1):
        bonus[d] = alpha * math.exp(-beta * (d - 1))
        penalty[d] = gamma * math.sqrt(d)
    best = -1
    best_score = -np.inf
    for i in range(size):
        if terminal[i] != 0 or n_children[i] >= max_expansions:
            continue
        n = visits[i]
        if n == 0:
            score = np.inf
        else:
            p = parent[i]
            total = visits[p] if p >= 0 else n
            d = depth[i]
            score = value_sum[i] / n + c * math.sqrt(math.log(max(total, 1)) / n) + bonus[d] - penalty[d]
        if best < 0 or score > best_score:
            best = i
            best_score = score
    return best


@njit(cache=True)
def backpropagate(node, reward, parent, visits, value_sum):
    """Add one visit and `reward` to the node and every ancestor."""
    i = node
    while i >= 0:
        visits[i] += 1
        value_sum[i] += reward
        i = parent[i]


@njit(cache=True)
def add_child(size, parent_index, parent, depth, n_children, children, reward):
    """Write a new node at index `size` under `parent_index`; returns its index."""
    parent[size] = parent_index
    depth[size] = depth[parent_index] + 1
    k = n_children[parent_index]
    children[parent_index, k] = size
    n_children[parent_index] = k + 1
    n_children[size] = 0
    reward[size] = 0.0
    return size


@njit(cache=True)
def run_iterations(size, parent, visits, value_sum, depth, n_children, terminal, rewards, max_expansions,
                   c, alpha, beta, gamma):
    """Benchmark loop: for each given reward, select a node and backpropagate the reward from it."""
    total = 0
    for r in rewards:
        s = select_node(size, parent, visits, value_sum, depth, n_children, terminal, max_expansions,
                        c, alpha, beta, gamma)
        if s < 0:
            break
        backpropagate(s, r, parent, visits, value_sum)
        total += s
    return total
