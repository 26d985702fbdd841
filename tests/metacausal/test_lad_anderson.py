import warnings

import numpy as np
import pytest

from toolkit.metacausal.anderson import ad_statistic, critical_value, laplace_ad
from toolkit.metacausal.em_reference import ad_statistic_loop
from toolkit.metacausal.lad import lad_line, lad_objective, weighted_median_index


def test_weighted_median_matches_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(30):
        v = np.round(rng.normal(size=25), 1)  # ties on purpose
        w = rng.uniform(size=25) * (rng.uniform(size=25) > 0.2)
        i = weighted_median_index(v, w)
        costs = np.abs(v[:, None] - v[None, :]) @ w  # cost of each candidate value
        assert costs[i] <= costs.min() + 1e-12
        assert w[i] > 0


def test_lad_objective_equals_linear_program():
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import QuantileRegressor

    rng = np.random.default_rng(1)
    for t in range(50):
        n = int(rng.integers(6, 200))
        x = rng.normal(size=n) * 3
        y = rng.normal() * x + rng.laplace(size=n)
        if t % 3 == 0:
            x[: n // 3] = x[0]  # duplicate x
        w = rng.uniform(0, 2, size=n)
        if t % 2 == 0:
            w[rng.uniform(size=n) < 0.3] = 0.0  # zero weights
        slope, intercept, obj = lad_line(x, y, w, float(rng.normal()))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            q = QuantileRegressor(quantile=0.5, alpha=0, solver="highs").fit(x[:, None], y, sample_weight=w)
        lp = lad_objective(x, y, w, q.intercept_, q.coef_[0])
        assert obj == pytest.approx(lp, rel=1e-8)
        assert lad_objective(x, y, w, intercept, slope) == pytest.approx(obj, rel=1e-12)


def test_ad_statistic_equals_loop():
    rng = np.random.default_rng(2)
    for n in (3, 10, 101, 1000):
        d = rng.laplace(size=n) * 2 + 1
        assert ad_statistic(d, 0.0) == pytest.approx(ad_statistic_loop(d), rel=1e-10)


def test_laplace_accepted_gaussian_rejected():
    rng = np.random.default_rng(3)
    accepted, a2, crit = laplace_ad(rng.laplace(size=1000))
    assert accepted and a2 < crit
    accepted, a2, crit = laplace_ad(rng.normal(size=1000))
    assert not accepted and a2 > crit


def test_critical_values_keep_the_tables_even_row():
    assert critical_value(1001) == pytest.approx(np.exp(-0.017972 + 0.2053 / 1001))
    assert critical_value(1000) == pytest.approx(np.exp(-0.018564 + 0.2053 / 1000))
    assert critical_value(0) == np.inf
