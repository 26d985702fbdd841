import numpy as np
import pytest

from toolkit.metacausal.generate import mechanism_counts, sample_linear


@pytest.mark.parametrize(("k", "counts"), [(2, [600, 400]), (3, [600, 500, 400]), (4, [600, 600, 400, 400])])
def test_imbalanced_counts(k, counts):
    assert mechanism_counts(k, 0.2) == counts
    p = sample_linear(k, np.random.default_rng(1))
    assert np.bincount(p.mechanism).tolist() == counts


def test_seed_100_is_pinned():
    p = sample_linear(2, np.random.default_rng(100))
    np.testing.assert_allclose(p.slope, [-4.20791183, -3.06345933], atol=1e-8)
    np.testing.assert_allclose(p.intercept, [4.73654395, 0.96471704], atol=1e-8)
    np.testing.assert_allclose(p.scale, [3.18202634, 3.65032359], atol=1e-8)
    assert p.direction.tolist() == [1, 0]
    np.testing.assert_allclose(p.x[:2], [-17.88661719, 20.95612217], atol=1e-8)
    np.testing.assert_allclose(p.y[:2], [4.81478981, -2.1525995], atol=1e-8)


def test_direction_one_swaps_columns():
    p = sample_linear(1, np.random.default_rng(100))
    assert p.direction[0] == 1
    # y is the cause, drawn within +-5; x is the effect: x = slope*y + intercept + Laplace noise
    assert np.abs(p.y).max() <= 5
    resid = p.x - (p.slope[0] * p.y + p.intercept[0])
    assert abs(np.mean(np.abs(resid)) - p.scale[0]) < 0.05
