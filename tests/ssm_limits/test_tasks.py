"""Generators: answers and every trace node recompute independently; zebra unique and minimal; splits."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from toolkit.core.errors import InputError
from toolkit.ssm_limits import zebra
from toolkit.ssm_limits.tasks import compose_data, compose_solve, generate, split_of
from toolkit.ssm_limits.traces import check_problem

CASES = [("compose", 8, 3), ("compose", 16, 2), ("iterate", 8, 5), ("mult", 4, 3), ("mult", 7, 5),
         ("dp", 9, None), ("dp", 14, None), ("zebra", 3, 3), ("zebra", 4, 4)]


@pytest.mark.parametrize(("task", "size", "depth"), CASES)
def test_answers_and_trace_nodes_recompute(task, size, depth):
    problems = generate(task, size, depth, 8, "test", seed=3)
    for p in problems:
        check = check_problem(p)
        assert check["ok"], check
        assert check["solved"] == p["answer"]


def test_mult_and_dp_match_plain_python():
    for p in generate("mult", 5, 4, 20, "dev", seed=1):
        assert int(p["answer"]) == p["data"]["a"] * p["data"]["b"]
        assert p["trace"][-1]["value"] == p["answer"]
    for p in generate("dp", 10, None, 20, "dev", seed=1):
        a, sel = p["data"]["a"], [int(c) for c in p["answer"].split()]
        assert not any(x and y for x, y in zip(sel, sel[1:], strict=False))
        best = max(sum(x for x, s in zip(a, (m >> i & 1 for i in range(len(a))), strict=False) if s)
                   for m in range(1 << len(a)) if not m & (m >> 1))
        assert sum(x for x, s in zip(a, sel, strict=True) if s) == best


def test_a_corrupted_trace_node_is_caught():
    p = generate("iterate", 8, 4, 1, "test", seed=0)[0]
    p["trace"][2]["value"] = str((int(p["trace"][2]["value"]) + 1) % 8)
    check = check_problem(p)
    assert not check["ok"] and check["bad_nodes"][0] == "s2"


def test_zebra_clues_unique_and_minimal():
    for p in generate("zebra", 4, 3, 4, "test", seed=2):
        data = p["data"]
        assert zebra.count_solutions(data) == 1
        for clue in data["clues"]:
            rest = {**data, "clues": [c for c in data["clues"] if c is not clue]}
            # dropping any clue loses uniqueness or the propagation proof the trace is made of
            assert zebra.count_solutions(rest) == 2 or not zebra._solved(rest)
        assert zebra.violated_clues(data, {k[2:]: int(v) for k, v in
                                           ((n["id"], n["value"]) for n in p["trace"])}) == []


def test_composition_is_uniform():
    rng = random.Random(0)
    n, draws = 8, 20_000
    counts = Counter(compose_solve(compose_data(rng, n, 2)) for _ in range(draws))
    chi2 = sum((counts[f"c{i}"] - draws / n) ** 2 / (draws / n) for i in range(n))
    assert chi2 < 24.3  # chi-square, 7 degrees of freedom, p = 0.001


def test_seed_deterministic_and_hash_disjoint_splits():
    a = generate("iterate", 4, 2, 40, "test", seed=5)
    assert a == generate("iterate", 4, 2, 40, "test", seed=5)
    assert a != generate("iterate", 4, 2, 40, "test", seed=6)
    train = generate("iterate", 4, 2, 200, "train", seed=5)
    assert not {p["id"] for p in a} & {p["id"] for p in train}
    assert all(split_of("iterate", p["data"]) == "test" for p in a)
    assert all(split_of("zebra", p["data"]) == "dev" for p in generate("zebra", 3, 2, 3, "dev", seed=0))


@pytest.mark.parametrize(("task", "size", "depth", "words"), [
    ("iterate", 65, 2, "symbol pool"), ("zebra", 6, 3, "2..5"), ("zebra", 3, 6, "2..5"), ("dp", 30, None, "dp"),
    ("nope", 4, 1, "unknown task")])
def test_bad_parameters(task, size, depth, words):
    with pytest.raises(InputError, match=words):
        generate(task, size, depth, 1, "test", seed=0)
