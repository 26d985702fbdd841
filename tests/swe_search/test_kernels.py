import math

import numpy as np
import pytest

from tests.swe_search import uct_reference as ref
from toolkit.swe_search import kernels
from toolkit.swe_search.tree import NodeInfo, Tree, UCTParams

PARAMS = (1.0, 200.0, 0.8, 0.8)


@pytest.mark.parametrize("seed,size,visited", [(0, 50, 1.0), (1, 300, 0.95), (2, 1000, 1.0), (3, 7, 0.5)])
def test_numba_matches_reference_on_random_trees(seed, size, visited):
    rng = np.random.default_rng(seed)
    parent, depth, n_children, visits, value_sum, terminal = ref.random_tree(rng, size, visited_fraction=visited)
    for params in (PARAMS, (2.5, 0.0, 0.5, 3.0), (0.0, 10.0, 1.0, 0.0)):
        got = kernels.select_node(size, parent, visits, value_sum, depth, n_children, terminal, 3, *params)
        want = ref.select_node(size, parent.tolist(), visits.tolist(), value_sum.tolist(), depth.tolist(),
                               n_children.tolist(), terminal.tolist(), 3, *params)
        assert got == want
        for i in range(0, size, max(1, size // 20)):
            a = kernels.uct_score(i, parent, visits, value_sum, depth, *params)
            b = ref.uct_score(i, parent.tolist(), visits.tolist(), value_sum.tolist(), depth.tolist(), *params)
            assert a == b or (math.isinf(a) and math.isinf(b))
    rewards = rng.integers(-100, 101, 40).astype(np.float64)
    v1, s1 = visits.copy(), value_sum.copy()
    v2, s2 = visits.tolist(), value_sum.tolist()
    t1 = kernels.run_iterations(size, parent, v1, s1, depth, n_children, terminal, rewards, 3, *PARAMS)
    t2 = ref.run_iterations(size, parent.tolist(), v2, s2, depth.tolist(), n_children.tolist(), terminal.tolist(),
                            rewards.tolist(), 3, *PARAMS)
    assert t1 == t2
    assert v1.tolist() == v2 and s1.tolist() == s2


def _paper(**kw):
    """The paper's eq. 3 (numba kernel) with C on its raw scale."""
    return UCTParams(selector="paper", c_scale=1.0, **kw)


def _tree(rewards_by_parent):
    """Build a tree from [(parent, reward), ...] through the real Tree API."""
    t = Tree(max_expansions=3, capacity=2)
    t.add_root(NodeInfo())
    t.backpropagate(0, 0.0)
    for p, r in rewards_by_parent:
        child = t.add_child(p, NodeInfo(kind="step"))
        t.backpropagate(child, r)
    return t


def test_exploitation_prefers_higher_value():
    t = _tree([(0, 10.0), (0, 50.0)])
    t.terminal[0] = 1
    assert t.select(_paper(c=0.0, alpha=0.0, gamma=0.0)) == 2


def test_exploration_prefers_fewer_visits():
    # equal mean value; node 1 visited 3 times, node 2 once
    t = _tree([(0, 20.0), (0, 20.0), (1, 20.0), (1, 20.0)])
    t.terminal[[0, 3, 4]] = 1
    assert t.select(_paper(c=0.0, alpha=0.0, gamma=0.0)) == 1  # tie on value -> lowest index
    assert t.select(_paper(c=5.0, alpha=0.0, gamma=0.0)) == 2


def test_depth_bonus_prefers_shallow_and_penalty_prefers_shallow():
    # node 1 (depth 1) value 0, node 2 (depth 2) value 30
    t = _tree([(0, 0.0), (1, 30.0)])
    t.terminal[0] = 1
    plain = _paper(c=0.0, alpha=0.0, gamma=0.0)
    assert t.select(plain) == 2
    assert t.select(_paper(c=0.0, alpha=200.0, beta=0.8, gamma=0.0)) == 1  # bonus 200 vs 89.9
    assert t.select(_paper(c=0.0, alpha=0.0, gamma=100.0)) == 1  # penalty 100 vs 141.4


def test_unvisited_nodes_first_and_full_nodes_skipped():
    t = _tree([(0, 90.0)])
    extra = t.add_child(0, NodeInfo(kind="step"))  # never evaluated
    assert t.select(_paper()) == extra
    t.backpropagate(extra, -100.0)
    t.add_child(0, NodeInfo(kind="step"))
    t.backpropagate(3, -100.0)
    # root now has 3 children: never selected again
    for _ in range(3):
        assert t.select(_paper()) != 0
    t.terminal[:] = 1
    assert t.select(_paper()) == -1


def test_tree_grows_and_backpropagates():
    t = _tree([(0, 10.0), (1, 30.0), (2, -20.0)])
    assert t.capacity >= 4 and t.size == 4
    assert t.visits[:4].tolist() == [4, 3, 2, 1]
    assert t.value_sum[:4].tolist() == [20.0, 20.0, 10.0, -20.0]
    assert t.path(3) == [0, 1, 2, 3]
    assert t.depth[3] == 3 and t.children_of(0) == [1]
