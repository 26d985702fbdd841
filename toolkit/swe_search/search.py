"""One instance's search: MCTS (UCT selection over the flat tree) or the linear baseline (one greedy
trajectory), with the same proposer, value function and node budget."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolkit.swe_search.actions import Env, execute
from toolkit.swe_search.instances import Instance
from toolkit.swe_search.localize import coverage_spectrum
from toolkit.swe_search.testrun import RunReport, run_tests
from toolkit.swe_search.tree import NodeInfo, Tree, UCTParams
from toolkit.swe_search.workspace import Workspace


@dataclass
class SearchConfig:
    strategy: str = "mcts"  # mcts | linear
    iterations: int = 100  # expansions (nodes) per instance
    uct: UCTParams = field(default_factory=UCTParams)
    max_finished: int = 3
    reward_threshold: float = 100.0
    max_cost: int = 0  # LLM tokens (prompt + completion); 0 = no limit
    test_timeout: float = 60.0
    seed: int = 0


class Episode:
    """The tree, the workspace and the agents of one instance."""

    def __init__(self, inst: Instance, ws: Workspace, cfg: SearchConfig, proposer, valuer, *,
                 auto_test: bool, cost=None) -> None:
        self.inst, self.ws, self.cfg = inst, ws, cfg
        self.proposer, self.valuer = proposer, valuer
        self.auto_test = auto_test
        self.cost = cost or (lambda: 0)
        self.env = Env(ws, inst.test_ids, inst.test_cmd, cfg.test_timeout)
        self.tree = Tree(cfg.uct.max_expansions)
        self.reports: dict[int, RunReport] = {}
        self._by_state: dict[str, RunReport] = {}  # git tree hash -> report (undo revisits a state)
        self.finished: list[int] = []
        root = NodeInfo(commit=ws.base, kind="root", observation=f"Repository at {ws.base[:12]}.")
        self.tree.add_root(root)
        if auto_test:
            report = self._test()
            self.reports[0] = report
            root.observation += f"\nTests: {report.summary()}."
            root.tests = dict(report.outcomes)
            root.reward = self.valuer.evaluate(self, 0)[0]
            self.tree.reward[0] = root.reward

    def _test(self) -> RunReport:
        state = self.ws.tree_hash()
        if state in self._by_state:
            return self._by_state[state]
        report = run_tests(self.ws.root, self.inst.test_ids, test_cmd=self.inst.test_cmd,
                           timeout=self.cfg.test_timeout, coverage_dir=self.ws.scratch)
        coverage_spectrum(report, self.ws.root)  # keep it: the next run overwrites the data file
        self.ws.checkout(self.ws.head)
        self._by_state[state] = report
        return report

    def report_at(self, node: int) -> RunReport | None:
        """The latest test report on the path to `node`."""
        for i in reversed(self.tree.path(node)):
            if i in self.reports:
                return self.reports[i]
        return None

    def trajectory(self, node: int) -> list[NodeInfo]:
        return [self.tree.info[i] for i in self.tree.path(node)]

    def expand(self, node: int) -> int | None:
        action = self.proposer.propose(self, node)
        if action is None:
            self.tree.terminal[node] = 1
            return None
        parent = self.tree.info[node]
        self.ws.checkout(parent.commit)
        obs = execute(self.env, {"name": action.get("name"), "args": action.get("args")})
        proposed, action = action, {k: v for k, v in action.items() if k != "files"}
        commit = self.ws.commit(f"step after node {node}: {action.get('name')}") if obs.changed else parent.commit
        kind = obs.terminal or ("step" if obs.ok else "error")
        text = obs.text
        report = obs.tests
        if obs.changed and self.auto_test:
            report = self._test()
            text += f"\nTests: {report.summary()}."
        info = NodeInfo(action=action, observation=text, commit=commit, kind=kind, patch=self.ws.diff(commit))
        child = self.tree.add_child(node, info)
        if hasattr(self.proposer, "on_child"):
            self.proposer.on_child(self, node, child, proposed, obs.changed)
        if report is not None:
            self.reports[child] = report
            info.tests = dict(report.outcomes)
        value, explanation, feedback = self.valuer.evaluate(self, child)
        info.explanation, info.feedback = explanation, feedback
        self.tree.backpropagate(child, value)
        if obs.terminal:
            self.tree.terminal[child] = 1
            if obs.terminal == "finish":
                self.finished.append(child)
        return child

    def _stop(self) -> bool:
        if len(self.finished) >= self.cfg.max_finished:
            return True
        if any(self.tree.reward[f] >= self.cfg.reward_threshold for f in self.finished):
            return True
        return bool(self.cfg.max_cost) and self.cost() >= self.cfg.max_cost

    def run(self) -> None:
        if self.cfg.strategy == "linear":
            self.run_linear()
        else:
            self.run_mcts()

    def run_mcts(self) -> None:
        for _ in range(self.cfg.iterations):
            if self._stop():
                break
            node = self.tree.select(self.cfg.uct)
            if node < 0:
                break
            self.expand(node)

    def run_linear(self) -> None:
        node = 0
        for _ in range(self.cfg.iterations):
            if self._stop():
                break
            child = self.expand(node)
            if child is None or self.tree.terminal[child]:
                break
            node = child

    def best_by_mean_reward(self, nodes: list[int]) -> int:
        return max(nodes, key=lambda n: (self.tree.mean_value(n), self.tree.info[n].reward, -n))

    def candidates(self) -> tuple[list[int], bool]:
        """Finished nodes with a non-empty patch; else the best unfinished nodes with one (flag False)."""
        done = [n for n in self.finished if self.tree.info[n].patch.strip()]
        if done:
            return done, True
        rest = [n for n in range(1, self.tree.size) if self.tree.info[n].patch.strip()]
        return rest, False

    def tree_record(self) -> list[dict[str, Any]]:
        return self.tree.to_json()
