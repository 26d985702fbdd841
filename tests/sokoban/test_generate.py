"""Generated levels are solvable within the bounds, seed-deterministic and split-disjoint."""

from __future__ import annotations

import pytest

from toolkit.core.errors import InputError
from toolkit.sokoban.generate import generate, split_of
from toolkit.sokoban.solver import solve


def test_levels_solvable_in_bounds_and_deterministic(gen_levels):
    for lv, moves, _ in gen_levels[:20]:
        sol = solve(lv, "bfs")
        assert sol.solved and sol.moves == moves and 6 <= moves <= 40
    assert {lv.n_boxes for lv, _, _ in gen_levels} == {1, 2}
    again = generate(60, (6, 6), [1, 2], 40, "val", 7)
    assert [a.text() for a, _, _ in again] == [b.text() for b, _, _ in gen_levels]
    other = generate(20, (6, 6), [1, 2], 40, "val", 8)
    assert {a.text() for a, _, _ in other} != {b.text() for b, _, _ in gen_levels[:20]}


def test_splits_are_disjoint():
    made = {s: generate(40, (6, 6), [1, 2], 40, s, 0, min_moves=1) for s in ("train", "val", "test")}
    digests = {s: {lv.digest() for lv, _, _ in m} for s, m in made.items()}
    assert not digests["train"] & digests["test"] and not digests["val"] & digests["test"]
    assert all(split_of(lv) == s for s, m in made.items() for lv, _, _ in m)


def test_move_bounds_and_bad_split():
    for _lv, moves, _ in generate(10, (5, 5), [1], 8, "test", 3):
        assert 6 <= moves <= 8
    with pytest.raises(InputError):
        generate(1, (6, 6), [1], 40, "dev", 0)
