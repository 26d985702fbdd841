"""Solve rates per thinking steps: McNemar against k = 0 whatever the order of --think, with its discordant counts;
per-box-count rates."""

from __future__ import annotations

import pytest

from toolkit.sokoban import evaluate
from toolkit.sokoban.rollout import Episode
from toolkit.sokoban.stats import mcnemar

# solved per level for k = 0, 1, 2 (8 levels): k = 2 differs from k = 0 on 8 levels (p = 0.008), from k = 1 on 6
OUTCOMES = {0: [0] * 8, 1: [1, 1, 0, 0, 0, 0, 0, 0], 2: [1] * 8}


@pytest.fixture
def fake(monkeypatch, gen_levels):
    calls = []

    def rollout(agent, levels, k, mode, cap):
        calls.append(k)
        return [Episode(lv.id, solved=bool(s)) for lv, s in zip(levels, OUTCOMES[k], strict=True)]

    monkeypatch.setattr(evaluate, "rollout", rollout)
    return [lv for lv, _, _ in gen_levels[:8]], calls


def test_mcnemar_is_against_k0_in_any_order(fake):
    levels, calls = fake
    rows = {k: row for k, _, row in evaluate.solve_rates(object(), levels, [2, 1, 0], "noop", 120, 0)}
    want = mcnemar([bool(s) for s in OUTCOMES[0]], [bool(s) for s in OUTCOMES[2]])
    assert rows[2]["mcnemar_p_vs_k0"] == want < 0.05
    assert rows[0]["mcnemar_p_vs_k0"] == 1.0 and rows[2]["rate"] == 1.0 and rows[1]["rate"] == 0.25


def test_k0_is_run_for_the_test_when_not_asked(fake):
    levels, calls = fake
    (row,) = [row for _, _, row in evaluate.solve_rates(object(), levels, [1, 2], "noop", 120, 0)][1:]
    assert row["think"] == 2 and 0 in calls
    assert row["mcnemar_p_vs_k0"] < mcnemar([bool(s) for s in OUTCOMES[1]], [bool(s) for s in OUTCOMES[2]])
    assert row["mcnemar_p_vs_k0"] == mcnemar([bool(s) for s in OUTCOMES[0]], [bool(s) for s in OUTCOMES[2]])
    assert set(row["by_boxes"]) == {"1", "2"}  # the fixture cycles 1 and 2 boxes


def test_discordant_counts_give_the_p_and_pool(monkeypatch, gen_levels):
    """only_k / only_k0 count the levels solved at k alone and at k = 0 alone; the exact test on them is the row's p,
    so two sets' rows pool by adding them."""
    from scipy.stats import binomtest

    runs = {0: [1, 1, 0, 0, 0, 0, 0, 0], 4: [0, 1, 1, 1, 1, 0, 0, 0]}
    monkeypatch.setattr(evaluate, "rollout", lambda agent, levels, k, mode, cap: [
        Episode(lv.id, solved=bool(s)) for lv, s in zip(levels, runs[k], strict=True)])
    levels = [lv for lv, _, _ in gen_levels[:8]]
    rows = {k: row for k, _, row in evaluate.solve_rates(object(), levels, [0, 4], "noop", 120, 0)}
    assert (rows[4]["only_k"], rows[4]["only_k0"]) == (3, 1) and (rows[0]["only_k"], rows[0]["only_k0"]) == (0, 0)
    assert rows[4]["mcnemar_p_vs_k0"] == binomtest(3, 4, 0.5).pvalue
    assert rows[4]["solved"] - rows[0]["solved"] == rows[4]["only_k"] - rows[4]["only_k0"]
