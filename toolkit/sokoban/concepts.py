"""Plan concepts per square and step (Bush et al.), from an agent's own rollout.

Classes 0 NEVER, 1 UP, 2 DOWN, 3 LEFT, 4 RIGHT (the action ids).
CA: the direction of the move by which the agent next enters the square after step t.
CB: the direction in which a box is next pushed off the square, from step t inclusive.
"""

from __future__ import annotations

import numpy as np

from toolkit.core.errors import InputError

CLASSES = ["NEVER", "UP", "DOWN", "LEFT", "RIGHT"]
CONCEPTS = ("CA", "CB")


def check_concept(name: str) -> str:
    if name not in CONCEPTS:
        raise InputError(f"--concept {name}: expected one of {', '.join(CONCEPTS)}")
    return name


def labels(players: list[tuple[int, int]], actions: list[int], pushes: list[int], shape: tuple[int, int],
           concept: str) -> np.ndarray:
    """(T, H, W) int labels for the T actions of one episode (players has T+1 squares)."""
    h, w = shape
    T = len(actions)
    out = np.zeros((T, h, w), np.int64)
    nxt = np.zeros((h, w), np.int64)
    for u in range(T - 1, -1, -1):
        if concept == "CA":
            if players[u + 1] != players[u]:  # the move at u enters players[u+1]
                nxt[players[u + 1]] = actions[u]
        elif pushes[u] >= 0:
            nxt[divmod(pushes[u], w)] = actions[u]
        out[u] = nxt
    return out
