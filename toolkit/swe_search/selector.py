"""Node selection. Two score functions over the same tree:

`reference` (default) follows the public SWE-Search / moatless-tree-search best-first selector:

    r(s) + C*S*sqrt(ln N(p) / N(s)) + [d == 0] * alpha*exp(-beta*(d-1)) - beta*sqrt(d)
         + leaf bonus + bad-children bonus - high-value-child penalty + high-value-parent bonus
         - finished-trajectory penalty

with r(s) the node's own reward (not the subtree mean), N visits, d depth, and the terms:
  leaf bonus 20 when s has no children and r(s) >= 55; bad-children bonus 5*(r(s) - r(c)) when r(s) >= 55
  and s has exactly one child c, an edit, with r(c) <= 50; child penalty 5 when some child has r >= 75;
  parent bonus 55 - r(s) when s has no children, r(s) <= 50 and its parent's reward is > 55 (or unset);
  finished-trajectory penalty 50 when s changed the code and a descendant finished with r >= 100.
The reference uses the same weight (0.8) for the depth-bonus decay and the depth penalty; here they are
`beta` and `gamma`. S scales C to the reward range (the reference's S is 1, so C=1 is negligible against
rewards of +-100); `--c-scale 1` gives the reference exactly.

`paper` is the paper's eq. 3: V(s) + C*S*sqrt(ln N(p)/N(s)) + alpha*exp(-beta*(d-1)) - gamma*sqrt(d), with
V the mean backpropagated value (numba kernel in kernels.py, applied at every depth).

Unvisited nodes score +inf. Ties go to the lowest node index.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

HIGH, LOW, VERY_HIGH = 55.0, 50.0, 75.0
LEAF_BONUS, BAD_CHILDREN_FACTOR, CHILD_PENALTY, FINISHED_PENALTY = 20.0, 5.0, 5.0, 50.0
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

    @property
    def total(self) -> float:
        return (self.exploitation + self.exploration + self.depth_bonus - self.depth_penalty + self.leaf_bonus
                + self.bad_children_bonus - self.child_penalty + self.parent_bonus - self.finished_penalty)


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
    kids = [c for c in tree.children_of(node)]
    rewarded = [tree.info[c].reward for c in kids if tree.info[c].rewarded]
    leaf = LEAF_BONUS if not kids and reward >= HIGH else 0.0
    bad = 0.0
    if kids and reward >= HIGH and len(rewarded) == 1 and any(
            (tree.info[c].action or {}).get("name") in EDIT_ACTIONS for c in kids):
        if rewarded[0] <= LOW:
            bad = (reward - rewarded[0]) * BAD_CHILDREN_FACTOR
    child_pen = CHILD_PENALTY if kids and max(rewarded, default=0.0) >= VERY_HIGH else 0.0
    parent_bonus = 0.0
    if not kids and parent >= 0:
        pinfo = tree.info[parent]
        if (not pinfo.rewarded or pinfo.reward > HIGH) and reward <= LOW:
            parent_bonus = HIGH - reward
    finished = FINISHED_PENALTY if info.patch.strip() and _on_finished_trajectory(tree, node) else 0.0
    return ScoreTerms(reward, explore, bonus, penalty, leaf, bad, child_pen, parent_bonus, finished)


def expandable(tree, node: int, max_expansions: int) -> bool:
    return not tree.terminal[node] and int(tree.n_children[node]) < max_expansions


def select_reference(tree, p) -> int:
    """Index of the expandable node with the highest reference score, or -1 when none is left."""
    best, best_score = -1, -math.inf
    for i in range(tree.size):
        if not expandable(tree, i, p.max_expansions):
            continue
        score = math.inf if tree.visits[i] == 0 else reference_terms(tree, i, p).total
        if best < 0 or score > best_score:
            best, best_score = i, score
    return best
