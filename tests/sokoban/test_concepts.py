"""CA/CB labels equal hand-computed grids on a scripted 6-step trajectory with one push."""

from __future__ import annotations

import numpy as np

from toolkit.sokoban.concepts import labels
from toolkit.sokoban.interventions import _replay
from toolkit.sokoban.levels import parse_text

LEVEL = "#######\n#     #\n#@$ . #\n#     #\n#######"
ACTIONS = [2, 1, 4, 1, 4, 3]  # down, up, right (pushes the box), up, right, left


def _grid(entries: dict) -> np.ndarray:
    g = np.zeros((3, 5), np.int64)
    for sq, k in entries.items():
        g[sq] = k
    return g


def test_scripted_trajectory_labels():
    (lv,) = parse_text(LEVEL, "s")
    players, pushes = _replay(lv, ACTIONS)
    assert players == [(1, 0), (2, 0), (1, 0), (1, 1), (0, 1), (0, 2), (0, 1)]
    assert pushes == [-1, -1, 6, -1, -1, -1]
    ca = labels(players, ACTIONS, pushes, lv.shape, "CA")
    cb = labels(players, ACTIONS, pushes, lv.shape, "CB")
    assert np.array_equal(ca[0], _grid({(2, 0): 2, (1, 0): 1, (1, 1): 4, (0, 1): 1, (0, 2): 4}))
    assert np.array_equal(ca[1], _grid({(1, 0): 1, (1, 1): 4, (0, 1): 1, (0, 2): 4}))
    assert np.array_equal(ca[2], _grid({(1, 1): 4, (0, 1): 1, (0, 2): 4}))
    assert np.array_equal(ca[3], _grid({(0, 1): 1, (0, 2): 4}))
    assert np.array_equal(ca[4], _grid({(0, 2): 4, (0, 1): 3}))
    assert np.array_equal(ca[5], _grid({(0, 1): 3}))
    for t in range(3):
        assert np.array_equal(cb[t], _grid({(1, 1): 4}))
    assert not cb[3:].any()
