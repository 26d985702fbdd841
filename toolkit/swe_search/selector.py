"""Node selection. Two score functions over the same tree:

`reference` (default) follows the public SWE-Search / moatless-tree-search best-first selector:

    r(s) + C*S*sqrt(ln N(p) / N(s)) + [d == 0] * alpha*exp(-beta*(d-1)) - beta*sqrt(d)
         + leaf bonus + bad-children bonus - high-value-child penalty + high-value-parent bonus
         - finished-trajectory penalty - duplicate-child penalty - duplicate-action penalty

with r(s) the node's own reward (not the subtree mean), N visits, d depth, and the terms (constants are
UCTParams fields, defaults in brackets):
  leaf bonus [20] when s has no children and r(s) >= high [55]; bad-children bonus 5*(r(s) - r(c)) when
  r(s) >= high and s has exactly one valued child c, an edit, with r(c) <= low [50]; child penalty [5] when
  some child has r >= very high [75]; parent bonus high - r(s) when s has no children, r(s) <= low and its
  parent's reward is > high (or unset); finished-trajectory penalty [50] when s changed the code and a
  descendant finished with r >= 100; duplicate-child penalty 25 * k^2 for k children that duplicate a
  sibling; duplicate-action penalty sum over action names of 50 * (m - 1)^2 for m > 1 children with that
  name. Nodes at depth >= max_depth [10] are not candidates (the reference filters them before scoring).
The reference uses the same weight (0.8) for the depth-bonus decay and the depth penalty; here they are
`beta` and `gamma`. S scales C to the reward range (the reference's S is 1, so C=1 is negligible against
rewards of +-100); `--c-scale 1` gives the reference exactly.

`paper` is the paper's eq. 3: V(s) + C*S*sqrt(ln N(p)/N(s)) + alpha*exp(-beta*(d-1)) - gamma*sqrt(d), with
V the mean backpropagated value (numba kernel in kernels.py, applied at every depth).

Unvisited nodes score +inf. Ties go to the lowest node index.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

EDIT_ACTIONS = ("string_replace", "create_file")


@dataclass(frozen=True)
class ScoreTerms:
    exploitation: float
    exploration: float
    depth_bonus: float
    depth_penalty: float
    leaf_bonus: float
    bad_children_bonus: float
    child_penalty: float
    parent_bonus: float
    finished_penalty: float
    duplicate_child_penalty: float = 0.0
    duplicate_action_penalty: float = 0.0

    @property
    def total(self) -> float:
        return (self.exploitation + self.exploration + self.depth_bonus - self.depth_penalty + self.leaf_bonus
                + self.bad_children_bonus - self.child_penalty + self.parent_bonus - self.finished_penalty
                - self.duplicate_child_penalty - self.duplicate_action_penalty)


def _on_finished_trajectory(tree, node: int) -> bool:
    todo = tree.children_of(node)
    while todo:
        child = todo.pop()
        info = tree.info[child]
        if info.kind == "finish" and info.rewarded and info.reward >= 100:
            return True
        todo += tree.children_of(child)
    return False


def reference_terms(tree, node: int, p) -> ScoreTerms:
    """The reference selector's terms for a visited node (see the module docstring)."""
    info = tree.info[node]
    reward = info.reward if info.rewarded else 0.0
    parent = int(tree.parent[node])
    total_visits = int(tree.visits[parent]) if parent >= 0 else 1
    explore = p.c * p.c_scale * math.sqrt(math.log(max(total_visits, 1)) / int(tree.visits[node]))
    depth = int(tree.depth[node])
    bonus = p.alpha * math.exp(-p.beta * (depth - 1)) if depth <= p.bonus_depth else 0.0
    penalty = p.gamma * math.sqrt(depth)
    kids = tree.children_of(node)
    rewarded = [tree.info[c].reward for c in kids if tree.info[c].rewarded]
    high, low = p.high_value_threshold, p.low_value_threshold
    leaf = p.leaf_bonus if not kids and reward >= high else 0.0
    bad = 0.0
    if kids and reward >= high and len(rewarded) == 1 and any(
            (tree.info[c].action or {}).get("name") in EDIT_ACTIONS for c in kids):
        if rewarded[0] <= low:
            bad = (reward - rewarded[0]) * p.bad_children_factor
    child_pen = p.child_penalty if kids and max(rewarded, default=0.0) >= p.very_high_value_threshold else 0.0
    parent_bonus = 0.0
    if not kids and parent >= 0:
        pinfo = tree.info[parent]
        if (not pinfo.rewarded or pinfo.reward > high) and reward <= low:
            parent_bonus = high - reward
    finished = p.finished_penalty if info.patch.strip() and _on_finished_trajectory(tree, node) else 0.0
    return ScoreTerms(reward, explore, bonus, penalty, leaf, bad, child_pen, parent_bonus, finished,
                      duplicate_child_penalty(tree, node, p), duplicate_action_penalty(tree, node, p))


def duplicate_child_penalty(tree, node: int, p) -> float:
    """25 * k^2 for k children that duplicate a sibling (calculate_duplicate_child_penalty)."""
    k = sum(1 for c in tree.children_of(node) if tree.info[c].duplicate_of >= 0)
    return p.duplicate_child_penalty * k ** 2 if k else 0.0


def duplicate_action_penalty(tree, node: int, p) -> float:
    """Sum over action names of 50 * (m - 1)^2 where m > 1 children took that action
    (calculate_duplicate_action_penalty; the reference counts the action class, i.e. the name, not its
    arguments)."""
    counts = Counter((tree.info[c].action or {}).get("name") for c in tree.children_of(node)
                     if tree.info[c].action)
    return sum(p.duplicate_action_penalty * (m - 1) ** 2 for m in counts.values() if m > 1)


def expandable(tree, node: int, max_expansions: int, max_depth: int | None = None) -> bool:
    if max_depth is not None and int(tree.depth[node]) >= max_depth:
        return False
    return not tree.terminal[node] and int(tree.n_children[node]) < max_expansions


def select_reference(tree, p) -> int:
    """Index of the expandable node with the highest reference score, or -1 when none is left."""
    best, best_score = -1, -math.inf
    for i in range(tree.size):
        if not expandable(tree, i, p.max_expansions, p.max_depth):
            continue
        score = math.inf if tree.visits[i] == 0 else reference_terms(tree, i, p).total
        if best < 0 or score > best_score:
            best, best_score = i, score
    return best
