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
        # the root: ln(1) = 0, depth bonus alpha*exp(-beta*(0-1)), two string_replace children: 50*(2-1)^2
        0: 20 + 0 + 200 * math.exp(0.8) - 50,
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


def _kids(t, parent, specs):
    """specs: (action name, duplicate_of) per child; each child is valued 10."""
    out = []
    for name, dup in specs:
        c = t.add_child(parent, NodeInfo(action={"name": name, "args": {}}, kind="step", duplicate_of=dup))
        if dup < 0:
            t.backpropagate(c, 10.0)
        out.append(c)
    return out


def test_duplicate_child_and_duplicate_action_penalties_by_hand():
    """Reference: 25 * (duplicate children)^2, and 50 * (m - 1)^2 per action name taken by m > 1 children."""
    t, p = Tree(max_expansions=5), UCTParams(max_expansions=5)
    t.add_root(NodeInfo())
    a = t.add_child(0, NodeInfo(action=EDIT, kind="step"))
    t.backpropagate(a, 60.0)
    first = _kids(t, a, [("string_replace", -1)])[0]
    _kids(t, a, [("string_replace", first), ("string_replace", -1), ("run_tests", -1)])
    terms = reference_terms(t, a, p)
    assert terms.duplicate_child_penalty == 25 * 1 ** 2
    assert terms.duplicate_action_penalty == 50 * (3 - 1) ** 2  # three string_replace children; run_tests once
    # the whole score, by hand: own reward 60, C*S*sqrt(ln N(root)/N(a)) with N(root) = N(a) = 4 (three valued
    # children + a), depth penalty 0.8*sqrt(1); child values 10 < 75: no child penalty; two valued edit
    # children: no bad-children bonus
    want = 60 + 100 * math.sqrt(math.log(4) / 4) - 0.8 - 25 - 200
    assert terms.total == pytest.approx(want, abs=1e-9)
    b = t.add_child(0, NodeInfo(action=EDIT, kind="step"))
    t.backpropagate(b, 60.0)
    x = _kids(t, b, [("finish", -1)])[0]
    y = _kids(t, b, [("string_replace", -1)])[0]
    _kids(t, b, [("finish", x), ("string_replace", y)])
    terms = reference_terms(t, b, p)
    assert terms.duplicate_child_penalty == 25 * 2 ** 2 and terms.duplicate_action_penalty == 50 + 50


def test_mean_reward_discriminator_is_the_mean_of_value_over_visits_root_included():
    """root -> a(80) -> fa(100); root -> b(60) -> b2(100) -> fb(100); root -> c(-100). Own rewards without the
    root would pick fa (90 vs 86.7); the reference's mean of value/visits along the path, root included:
    fa (340/6 + 180/2 + 100)/3 = 82.22, fb (340/6 + 260/3 + 200/2 + 100)/4 = 85.83: fb."""
    ep = Episode.__new__(Episode)
    ep.tree = Tree(max_expansions=3)
    ep.tree.add_root(NodeInfo(kind="root", rewarded=True, reward=0.0))  # valued, never backpropagated
    nodes = {}
    for name, parent, reward in (("a", 0, 80.0), ("fa", "a", 100.0), ("b", 0, 60.0), ("b2", "b", 100.0),
                                 ("fb", "b2", 100.0), ("c", 0, -100.0)):
        nodes[name] = ep.tree.add_child(nodes.get(parent, 0), NodeInfo(kind="step"))
        ep.tree.backpropagate(nodes[name], reward)
    fa, fb = nodes["fa"], nodes["fb"]
    assert ep.trajectory_mean_reward(fa) == pytest.approx((340 / 6 + 180 / 2 + 100) / 3)
    assert ep.trajectory_mean_reward(fb) == pytest.approx((340 / 6 + 260 / 3 + 200 / 2 + 100) / 4)
    assert ep.best_by_mean_reward([fa, fb]) == fb
    # the tree a budget of 2 would have built (a, fa): root (80 + 100)/2, a 180/2, fa 100
    assert ep.trajectory_mean_reward(fa, limit=fa) == pytest.approx((90 + 90 + 100) / 3)
    assert ep.path_stats(fb, limit=ep.tree.size - 1) == ep.path_stats(fb)


def test_reward_threshold_reads_the_finished_nodes_the_reference_keeps():
    """SearchTree.is_finished checks the threshold over get_finished_nodes(), which keeps the first finished
    node per parent: a later 100 under a parent that already finished at 50 does not stop the search."""
    ep = Episode.__new__(Episode)
    ep.tree = Tree(max_expansions=3)
    ep.tree.add_root(NodeInfo())
    ep.cfg = type("C", (), {"max_finished": 3, "min_finished": 2, "reward_threshold": 100.0, "max_cost": 0})()
    ep.cost = lambda: 0
    a = ep.tree.add_child(0, NodeInfo(kind="step"))
    b = ep.tree.add_child(0, NodeInfo(kind="step"))
    ep.finished = []
    for parent, reward in ((a, 50.0), (a, 100.0), (b, 50.0)):
        f = ep.tree.add_child(parent, NodeInfo(kind="finish"))
        ep.tree.backpropagate(f, reward)
        ep.finished.append(f)
    assert ep.unique_finished() == [ep.finished[0], ep.finished[2]] and not ep._stop()
    ep.tree.reward[ep.finished[2]] = 100.0  # a first-per-parent finished node at the threshold, 2 parents
    assert ep._stop()


def test_max_depth_keeps_deep_nodes_out_of_selection():
    t = Tree(max_expansions=3)
    t.add_root(NodeInfo())
    node = 0
    for _ in range(10):  # a chain down to depth 10
        node = t.add_child(node, NodeInfo(kind="step"))
        t.backpropagate(node, 50.0)
    for i in range(10):
        t.terminal[i] = 1
    assert int(t.depth[node]) == 10
    assert t.select(UCTParams()) == -1 and t.select(UCTParams(selector="paper")) == -1  # default max_depth 10
    assert t.select(UCTParams(max_depth=11)) == node and t.select(UCTParams(selector="paper", max_depth=11)) == node


def test_class_defaults_are_the_documented_constants():
    """The selector table in assets/swe_search/README.md and UCTParams() agree, field by field."""
    from dataclasses import asdict
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "assets" / "swe_search" / "README.md").read_text()
    rows = [line.split("|")[1:-1] for line in readme.splitlines() if line.startswith("| `") and "UCTParams." in line]
    documented = {cells[0].strip().strip("`").split(".", 1)[1]: float(cells[1]) for cells in rows}
    defaults = asdict(UCTParams())
    assert len(documented) >= 15
    for name, value in documented.items():
        assert defaults[name] == value, name
