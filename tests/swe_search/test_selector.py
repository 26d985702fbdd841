"""The reference selector against its formula computed by hand, on a tree with nodes at depths 0-3."""

import math

import pytest

from toolkit.swe_search import kernels
from toolkit.swe_search.search import Episode
from toolkit.swe_search.selector import reference_terms
from toolkit.swe_search.tree import NodeInfo, Tree, UCTParams

EDIT = {"name": "string_replace", "args": {"path": "m.py", "old": "a", "new": "b"}}


def _tree():
    """root(20) -> 1(60, edit) -> 3(40, edit) -> 4(80); root -> 2(-30). Visits come from backpropagation."""
    t = Tree(max_expansions=3)
    t.add_root(NodeInfo())
    t.backpropagate(0, 20.0)
    for parent, reward, action in ((0, 60.0, EDIT), (0, -30.0, EDIT), (1, 40.0, EDIT), (3, 80.0, None)):
        child = t.add_child(parent, NodeInfo(action=action, kind="step"))
        t.backpropagate(child, reward)
    return t


def test_reference_scores_match_the_formula_by_hand_at_depths_0_to_3():
    t, p = _tree(), UCTParams()  # C 1 on the reward scale 100, alpha 200, beta = gamma 0.8, bonus at the root
    assert t.visits[:5].tolist() == [5, 3, 1, 2, 1]
    by_hand = {
        # own reward + C*S*sqrt(ln N(parent) / N) + root bonus - depth penalty + bonus/penalty terms
        0: 20 + 0 + 200 * math.exp(0.8),  # the root: ln(1) = 0, depth bonus alpha*exp(-beta*(0-1))
        1: 60 + 100 * math.sqrt(math.log(5) / 3) - 0.8 + (60 - 40) * 5,  # one low-valued edit child: 5*(r - r_c)
        2: -30 + 100 * math.sqrt(math.log(5) / 1) - 0.8,  # parent 20 is not > 55: no parent bonus
        3: 40 + 100 * math.sqrt(math.log(3) / 2) - 0.8 * math.sqrt(2) - 5,  # a child >= 75: penalty 5
        4: 80 + 100 * math.sqrt(math.log(2) / 1) - 0.8 * math.sqrt(3) + 20,  # high-valued leaf: bonus 20
    }
    for node, want in by_hand.items():
        assert reference_terms(t, node, p).total == pytest.approx(want, abs=1e-9), node
    assert t.select(p) == 0
    t.terminal[0] = 1
    assert t.select(p) == 1  # 232.4 beats 181.9 (node 4), 108.0 (node 3) and 96.1 (node 2)
    t.terminal[1] = 1
    assert t.select(p) == 4
    t.terminal[4] = 1
    assert t.select(p) == 3


def test_parent_bonus_finished_penalty_and_the_paper_option():
    t, p = _tree(), UCTParams()
    t.info[0].reward = 90.0  # a high-valued parent: its low-valued leaf child gets 55 - r
    assert reference_terms(t, 2, p).parent_bonus == 55 - (-30)
    t.info[3].patch = "diff"
    done = t.add_child(4, NodeInfo(kind="finish"))
    t.backpropagate(done, 100.0)
    assert reference_terms(t, 3, p).finished_penalty == 50 and reference_terms(t, 2, p).finished_penalty == 0
    paper = UCTParams(selector="paper", c_scale=1.0)
    t.terminal[0] = 1
    t.terminal[done] = 1
    # eq. 3: the subtree mean (node 1: (60 + 40 + 80 + 100) / 4) and a depth bonus at every depth
    score = kernels.uct_score(1, t.parent, t.visits, t.value_sum, t.depth, 1.0, 200.0, 0.8, 0.8)
    assert score == pytest.approx(70 + math.sqrt(math.log(6) / 4) + 200 - 0.8)
    assert t.select(paper) == 1


def test_termination_counts_unique_finished_parents():
    ep = Episode.__new__(Episode)
    ep.tree = Tree(max_expansions=3)
    ep.tree.add_root(NodeInfo())
    a = ep.tree.add_child(0, NodeInfo(kind="step"))
    f1 = ep.tree.add_child(a, NodeInfo(kind="finish"))
    f2 = ep.tree.add_child(a, NodeInfo(kind="finish"))
    ep.finished = [f1, f2]
    ep.cfg = type("C", (), {"max_finished": 2, "min_finished": 2, "reward_threshold": 100.0, "max_cost": 0})()
    ep.cost = lambda: 0
    for f in (f1, f2):
        ep.tree.backpropagate(f, 100.0)
    assert ep.unique_finished() == [f1] and not ep._stop()  # two finishes, one parent: not done
    b = ep.tree.add_child(0, NodeInfo(kind="step"))
    f3 = ep.tree.add_child(b, NodeInfo(kind="finish"))
    ep.finished.append(f3)
    assert ep.unique_finished() == [f1, f3] and ep._stop()
    assert ep.unique_finished(limit=f2) == [f1]  # the tree a smaller budget would have built
