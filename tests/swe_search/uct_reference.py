"""Pure-Python reference of the numba selection/backprop kernels (plain lists, math module)."""

from __future__ import annotations

import math


def uct_score(node, parent, visits, value_sum, depth, c, alpha, beta, gamma):
    n = visits[node]
    if n == 0:
        return math.inf
    p = parent[node]
    total = visits[p] if p >= 0 else n
    explore = c * math.sqrt(math.log(max(total, 1)) / n)
    d = depth[node]
    return value_sum[node] / n + explore + alpha * math.exp(-beta * (d - 1)) - gamma * math.sqrt(d)


def select_node(size, parent, visits, value_sum, depth, n_children, terminal, max_expansions, c, alpha, beta, gamma):
    best, best_score = -1, -math.inf
    for i in range(size):
        if terminal[i] or n_children[i] >= max_expansions:
            continue
        score = uct_score(i, parent, visits, value_sum, depth, c, alpha, beta, gamma)
        if best < 0 or score > best_score:
            best, best_score = i, score
    return best


def backpropagate(node, reward, parent, visits, value_sum):
    while node >= 0:
        visits[node] += 1
        value_sum[node] += reward
        node = parent[node]


def run_iterations(size, parent, visits, value_sum, depth, n_children, terminal, rewards, max_expansions,
                   c, alpha, beta, gamma):
    total = 0
    for r in rewards:
        s = select_node(size, parent, visits, value_sum, depth, n_children, terminal, max_expansions,
                        c, alpha, beta, gamma)
        if s < 0:
            break
        backpropagate(s, r, parent, visits, value_sum)
        total += s
    return total


def random_tree(rng, size, max_expansions=3, visited_fraction=0.9):
    """Random tree arrays (numpy) with consistent visits/values: parents precede children."""
    import numpy as np

    parent = np.full(size, -1, np.int64)
    depth = np.zeros(size, np.int64)
    n_children = np.zeros(size, np.int64)
    open_nodes = [0]
    for i in range(1, size):
        while True:
            k = int(rng.integers(len(open_nodes)))
            p = open_nodes[k]
            if n_children[p] < max_expansions:
                break
            open_nodes.pop(k)
        parent[i] = p
        depth[i] = depth[p] + 1
        n_children[p] += 1
        open_nodes.append(i)
    visits = np.zeros(size, np.int64)
    value_sum = np.zeros(size, np.float64)
    for i in range(size - 1, -1, -1):
        if rng.random() < visited_fraction:
            r = float(rng.integers(-100, 101))
            node = i
            while node >= 0:
                visits[node] += 1
                value_sum[node] += r
                node = parent[node]
    terminal = (rng.random(size) < 0.1).astype(np.uint8)
    return parent, depth, n_children, visits, value_sum, terminal
