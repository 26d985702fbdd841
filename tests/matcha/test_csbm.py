import numpy as np
import pytest

from toolkit.matcha.csbm import _triangle_pairs, csbm_edges, csbm_edges_loop, generate_csbm, labels
from toolkit.matcha.io import graph_stats


@pytest.fixture(scope="module")
def big():
    return generate_csbm(5000, 2000, 0.03, 0.0, 5, 0.8, seed=11)


def test_full_size_degree_homophily_and_class_means(big):
    stats = graph_stats(big)
    assert abs(stats["mean_degree"] - 2.5) <= 0.05 * 2.5
    assert abs(stats["edge_homophily"] - 0.8) <= 0.02
    assert stats["class_sizes"] == [2500, 2500]
    p = big.num_features
    proj = big.x @ (np.ones(p, dtype=np.float32) / np.sqrt(p))  # x·u = mean + N(0, 1/p) noise
    se = 1 / np.sqrt(p * 2500)
    assert abs(proj[big.y == 1].mean() - 0.03) < 3 * se
    assert abs(proj[big.y == 0].mean() + 0.03) < 3 * se


def test_same_seed_same_graph_other_seed_other_graph():
    a, b = generate_csbm(400, 20, seed=3), generate_csbm(400, 20, seed=3)
    c = generate_csbm(400, 20, seed=4)
    assert np.array_equal(a.edge_index, b.edge_index) and np.array_equal(a.x, b.x)
    assert not np.array_equal(a.edge_index, c.edge_index)


def test_attribute_shift_moves_both_means_by_delta():
    a = generate_csbm(400, 50, 0.03, 0.0, 5, 0.8, seed=1)
    b = generate_csbm(400, 50, 0.03, 0.02, 5, 0.8, seed=1)
    assert np.array_equal(a.edge_index, b.edge_index)
    assert np.allclose(b.x - a.x, 0.02 / np.sqrt(50), atol=1e-6)


def test_triangle_decoding_is_exact():
    m = 57
    i, j = np.triu_indices(m, k=1)
    di, dj = _triangle_pairs(np.arange(len(i)), m)
    assert np.array_equal(di, i) and np.array_equal(dj, j)


def test_edge_frequencies_match_the_per_pair_definition():
    """At n=300: block edge counts and per-node degrees over many draws match the pair-by-pair Bernoulli model,
    and the loop reference agrees with the same expectations."""
    n, d, h, draws = 300, 6.0, 0.7, 300
    y = labels(n)
    rng = np.random.default_rng(0)
    same_pairs, cross_pairs = 2 * (150 * 149 // 2), 150 * 150
    within, across, deg = [], [], np.zeros(n)
    for _ in range(draws):
        e = csbm_edges(rng, y, d, h)
        assert (e[0] < e[1]).all() and len({tuple(c) for c in e.T}) == e.shape[1]
        same = y[e[0]] == y[e[1]]
        within.append(same.sum())
        across.append((~same).sum())
        np.add.at(deg, e.ravel(), 1)
    for counts, pairs, prob in ((within, same_pairs, d * h / n), (across, cross_pairs, d * (1 - h) / n)):
        mean, sd = pairs * prob, np.sqrt(pairs * prob * (1 - prob))
        assert abs(np.mean(counts) - mean) < 4 * sd / np.sqrt(draws)
        assert abs(np.std(counts) - sd) < 0.2 * sd
    # every node equally likely: per-node degree totals are Poisson-like around their mean
    expect = draws * ((149 * d * h / n) + (150 * d * (1 - h) / n))
    z = (deg - expect) / np.sqrt(expect)
    assert abs(z.mean()) < 0.3 and 0.8 < z.std() < 1.2
    loop = [csbm_edges_loop(np.random.RandomState(s), y, d, h).shape[1] for s in range(20)]
    total = same_pairs * d * h / n + cross_pairs * d * (1 - h) / n
    assert abs(np.mean(loop) - total) < 4 * np.sqrt(total) / np.sqrt(20)
