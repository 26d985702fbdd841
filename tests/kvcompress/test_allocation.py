import numpy as np
import pytest

from toolkit.kvcompress.allocation import (
    adakv_layer_budgets,
    headkv_budgets,
    pyramid_budgets,
    round_preserving_sum,
)


def test_round_preserving_sum_is_exact_and_close():
    vals = np.array([1.4, 2.6, 3.5, 0.5])
    out = round_preserving_sum(vals, 8)
    assert out.sum() == 8
    assert np.all(np.abs(out - vals) < 1)


@pytest.mark.parametrize("beta", [1.005, 1.2, 2.0, 10.0])
def test_headkv_budgets_sum_to_global_budget_with_floor(beta):
    rng = np.random.default_rng(0)
    scores = rng.random((4, 8)) ** 4
    budget, window = 40, 8
    b = headkv_budgets(scores, budget, window, beta=beta)
    assert b.shape == (4, 8)
    assert b.sum() == budget * 32
    base = budget - window
    assert b.min() >= window + base - int(base // beta)  # minimum per head
    # more important heads never get less
    order = np.argsort(scores.ravel())
    assert np.all(np.diff(b.ravel()[order]) >= -1)


def test_headkv_budgets_follow_scores():
    scores = np.zeros((2, 4))
    scores[1, 2] = 1.0
    b = headkv_budgets(scores, 40, 8, beta=1.005)
    assert b[1, 2] == 8 + 1 + 31 * 8  # window + floor + the whole pool
    assert (np.delete(b.ravel(), 6) == 9).all()


def test_pyramid_budgets_fall_linearly_and_sum():
    b = pyramid_budgets(5, 4, 72, 8, pyramid_beta=20)
    sel = b[:, 0] - 8
    assert b.sum() == 72 * 20
    assert np.all(np.diff(sel) < 0)
    assert abs(sel[0] - (2 * 64 - 64 / 20)) <= 1 and abs(sel[-1] - 64 / 20) <= 1
    assert (b == b[:, :1]).all()


def test_adakv_budgets_sum_and_floor():
    import torch

    scores = torch.zeros(4, 100)
    scores[0, :60] = 1.0  # head 0 has all the mass
    out = adakv_layer_budgets(scores, budget=28, window=8, floor_ratio=0.2)
    assert out.sum() == 20 * 4
    assert out.min() >= 4 and out[0] == out.max()


def test_headkv_rejects_budget_below_window():
    with pytest.raises(ValueError):
        headkv_budgets(np.ones((1, 2)), 4, 8)


def test_headkv_allocation_matches_the_reference_formula_by_hand():
    # HeadKV (headkv/snapkv_utils.py): base = 40 - 8 = 32; pool = (32 // 2) per head = 16 x 4 = 64 shared by the
    # normalised scores (0.5, 0.25, 0.125, 0.125) -> 32, 16, 8, 8; each head keeps 32 - 16 = 16, plus the window
    b = headkv_budgets(np.array([[4.0, 2.0], [1.0, 1.0]]), 40, 8, beta=2.0)
    assert b.tolist() == [[56, 40], [32, 32]]
    # temperature: scores raised to it before normalising (squares: 16, 4, 1, 1 of 22 -> 46.5, 11.6, 2.9, 2.9)
    t = headkv_budgets(np.array([[4.0, 2.0], [1.0, 1.0]]), 40, 8, beta=2.0, temperature=2.0)
    assert t.sum() == 4 * 40 and t[0, 0] in (70, 71) and t[1, 0] in (26, 27)
