"""Solver optima checked by hand, BFS = A* on generated levels, dead positions refused at once."""

from __future__ import annotations

import time

import pytest

from toolkit.sokoban.env import BatchEnv
from toolkit.sokoban.levels import parse_text
from toolkit.sokoban.solver import solve

HAND = [  # (level, optimal moves, optimal pushes, a LURD optimum)
    ("######\n#@$.##\n#    #\n######", 1, 1, "R"),
    ("#######\n#@ $ .#\n#######", 3, 2, "rRR"),
    ("######\n#.   #\n#$   #\n#@   #\n######", 1, 1, "U"),
    ("#######\n#.    #\n#  $  #\n#  @  #\n#######", 5, 3, "UruLL"),
    ("#######\n#. $@ #\n#   $.#\n#     #\n#######", None, None, None),
]


@pytest.mark.parametrize("algo", ["astar", "bfs"])
@pytest.mark.parametrize("text, moves, pushes, lurd", HAND[:4])
def test_hand_checked_optima(text, moves, pushes, lurd, algo):
    (lv,) = parse_text(text, "h")
    sol = solve(lv, algo)
    assert sol.solved and sol.moves == moves and sol.pushes == pushes
    if lurd:
        assert sol.lurd == lurd


def test_two_box_optimum_replays_to_a_solve():
    (lv,) = parse_text(HAND[4][0], "h")
    sol = solve(lv, "astar")
    assert sol.solved and sol.moves == solve(lv, "bfs").moves == 5 and sol.lurd == "LLdrR"
    env = BatchEnv([lv], 1, sample=False)
    for a in sol.actions():
        _, term, _ = env.step([a], auto_reset=False)
    assert term[0]


def test_bfs_equals_astar_on_50_levels(gen_levels):
    for lv, moves, _pushes in gen_levels[:50]:
        a, b = solve(lv, "astar"), solve(lv, "bfs")
        assert a.solved and b.solved and a.moves == b.moves == moves


def test_cornered_box_unsolvable_fast():
    (lv,) = parse_text("########\n#$     #\n#      #\n#  @  .#\n#      #\n########", "c")
    t0 = time.perf_counter()
    sol = solve(lv, "astar")
    assert not sol.solved and sol.status == "unsolvable" and time.perf_counter() - t0 < 0.1
    t0 = time.perf_counter()
    assert solve(lv, "bfs").status == "unsolvable" and time.perf_counter() - t0 < 0.1


def test_node_limit():
    (lv,) = parse_text(HAND[3][0], "h")
    assert solve(lv, "bfs", node_limit=2).status == "node-limit"


def test_numba_bfs_equals_python_bfs(gen_levels):
    from toolkit.sokoban.solver import solve_bfs
    from toolkit.sokoban.solver_numba import solve_bfs_numba

    for lv, moves, _ in gen_levels[:50]:
        ref = solve_bfs(lv)
        assert solve_bfs_numba(lv) == (moves, ref.nodes)
    (corner,) = parse_text("########\n#$     #\n#      #\n#  @  .#\n#      #\n########", "c")
    assert solve_bfs_numba(corner)[0] == -1


def test_numba_live_squares_equal_the_python_board(gen_levels):
    import numpy as np

    from toolkit.sokoban.solver import Board
    from toolkit.sokoban.solver_numba import live_squares

    (corner,) = parse_text("########\n#$     #\n#      #\n#  @  .#\n#      #\n########", "c")
    for lv in [lv for lv, _, _ in gen_levels] + [corner]:
        h, w = lv.shape
        live = live_squares(lv.walls.ravel().astype(np.bool_), h, w, lv.targets.ravel().astype(np.bool_))
        assert set(np.flatnonzero(live).tolist()) == Board(lv).live


def test_numba_bfs_solutions_equal_python_bfs_and_back_the_commands(gen_levels):
    from toolkit.sokoban.solver import solve, solve_astar, solve_bfs, solve_fast
    from toolkit.sokoban.solver_numba import solve_bfs_fast

    (corner,) = parse_text("########\n#$     #\n#      #\n#  @  .#\n#      #\n########", "c")
    for lv in [lv for lv, _, _ in gen_levels[:40]] + [corner]:
        ref = solve_bfs(lv)
        assert solve_bfs_fast(lv) == ref  # the same LURD string, node count and status
        assert solve(lv, "bfs") == ref and solve_fast(lv) == ref
        if ref.solved:
            assert ref.moves == solve_astar(lv).moves
    (lv,) = parse_text(HAND[3][0], "h")
    assert solve_bfs_fast(lv, node_limit=2) == solve_bfs(lv, node_limit=2)
