"""The search tree: statistics in flat numpy arrays, per-node payloads (actions, observations) in lists."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from toolkit.swe_search import kernels


@dataclass
class UCTParams:
    """Selection settings. The defaults are the settings the SWE-Search authors published with their
    trajectories (moatless-tree-search, tests/traj_haiku.json: C 1, depth weight 0.8, depth bonus factor 200,
    thresholds 55 / 50 / 75, leaf bonus 20, child penalty 5, finished-trajectory penalty 50), plus the
    duplicate penalties (25, 50) and max_depth 10 of the reference code, which that file predates. The
    reference classes' own defaults differ (bonus factor 0, thresholds 50 / 0, leaf bonus 50); the table in
    assets/swe_search/README.md lists both. `c_scale` puts C on the reward scale (see selector.py)."""

    c: float = 1.0
    alpha: float = 200.0  # depth_bonus_factor
    beta: float = 0.8  # depth_weight (bonus decay)
    gamma: float = 0.8  # depth_weight (penalty)
    max_expansions: int = 3
    selector: str = "reference"  # reference | paper
    c_scale: float = 100.0
    bonus_depth: int = 0  # reference: the depth bonus applies to nodes at depth <= this
    max_depth: int = 10  # nodes at this depth or deeper are never expanded (SearchTree.create's default)
    high_value_threshold: float = 55.0
    low_value_threshold: float = 50.0
    very_high_value_threshold: float = 75.0
    leaf_bonus: float = 20.0  # high_value_leaf_bonus_constant
    bad_children_factor: float = 5.0  # a literal 5 in the reference code
    child_penalty: float = 5.0  # high_value_child_penalty_constant
    finished_penalty: float = 50.0  # finished_trajectory_penalty
    duplicate_child_penalty: float = 25.0  # x (duplicate children)^2
    duplicate_action_penalty: float = 50.0  # x (children with one action name - 1)^2, per name


@dataclass
class NodeInfo:
    action: dict[str, Any] | None = None
    observation: str = ""
    commit: str = ""
    reward: float = 0.0
    explanation: str = ""
    feedback: str = ""
    kind: str = "root"  # root | step | finish | reject | error
    patch: str = ""
    tests: dict[str, Any] = field(default_factory=dict)
    rewarded: bool = False
    duplicate_of: int = -1  # a sibling with the same action or resulting state; never expanded nor valued


class Tree:
    """Flat-array tree. Index 0 is the root; arrays grow by doubling."""

    def __init__(self, max_expansions: int = 3, capacity: int = 64) -> None:
        self.max_expansions = max_expansions
        self.size = 0
        self._alloc(capacity)
        self.info: list[NodeInfo] = []

    def _alloc(self, capacity: int) -> None:
        old = getattr(self, "parent", None)
        new = {
            "parent": np.full(capacity, -1, np.int64),
            "depth": np.zeros(capacity, np.int64),
            "visits": np.zeros(capacity, np.int64),
            "value_sum": np.zeros(capacity, np.float64),
            "reward": np.zeros(capacity, np.float64),
            "n_children": np.zeros(capacity, np.int64),
            "terminal": np.zeros(capacity, np.uint8),
            "children": np.full((capacity, self.max_expansions), -1, np.int64),
        }
        if old is not None:
            for name, arr in new.items():
                arr[: self.size] = getattr(self, name)[: self.size]
        for name, arr in new.items():
            setattr(self, name, arr)
        self.capacity = capacity

    def add_root(self, info: NodeInfo) -> int:
        self.size = 1
        self.info = [info]
        return 0

    def add_child(self, parent_index: int, info: NodeInfo) -> int:
        if self.size >= self.capacity:
            self._alloc(self.capacity * 2)
        idx = kernels.add_child(self.size, parent_index, self.parent, self.depth, self.n_children, self.children,
                                self.reward)
        self.size += 1
        self.info.append(info)
        return idx

    def select(self, p: UCTParams) -> int:
        if p.selector == "reference":
            from toolkit.swe_search.selector import select_reference

            return select_reference(self, p)
        closed = self.terminal.copy()  # the reference drops nodes at max_depth before scoring
        closed[: self.size][self.depth[: self.size] >= p.max_depth] = 1
        return int(kernels.select_node(self.size, self.parent, self.visits, self.value_sum, self.depth,
                                       self.n_children, closed, p.max_expansions, p.c * p.c_scale, p.alpha,
                                       p.beta, p.gamma))

    def backpropagate(self, node: int, reward: float) -> None:
        self.reward[node] = reward
        self.info[node].reward = reward
        self.info[node].rewarded = True
        kernels.backpropagate(node, float(reward), self.parent, self.visits, self.value_sum)

    def children_of(self, node: int) -> list[int]:
        return [int(c) for c in self.children[node, : self.n_children[node]]]

    def path(self, node: int) -> list[int]:
        out = []
        while node >= 0:
            out.append(node)
            node = int(self.parent[node])
        return out[::-1]

    def mean_value(self, node: int) -> float:
        v = self.visits[node]
        return float(self.value_sum[node] / v) if v else 0.0

    def to_json(self) -> list[dict[str, Any]]:
        nodes = []
        for i in range(self.size):
            info = self.info[i]
            nodes.append({
                "id": i, "parent": int(self.parent[i]), "depth": int(self.depth[i]), "visits": int(self.visits[i]),
                "value": round(self.mean_value(i), 4), "reward": info.reward, "kind": info.kind,
                "action": info.action, "observation": info.observation, "explanation": info.explanation,
                "feedback": info.feedback, "terminal": bool(self.terminal[i]), "children": self.children_of(i),
                "patch": info.patch, "tests": info.tests, "duplicate_of": info.duplicate_of,
            })
        return nodes
