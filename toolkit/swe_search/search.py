"""One instance's search with one proposer, value function and node budget, by strategy:

- `mcts`: UCT selection over the tree (selector.py / kernels.py), expand, value, backpropagate;
- `linear`: one greedy trajectory, no going back (the paper's linear agent);
- `linear-undo`: the same, but the proposer may undo an edit that did not raise the value;
- `restarts`: best-of-k: k linear trajectories from the root, each with an equal share of the nodes.

The agent's tests are the visible ones (PASS_TO_PASS, which exist in the repository), the reproduction test
the proposer derives from the problem statement, and test files the agent adds itself. FAIL_TO_PASS tests
arrive with `test_patch` and are run only by the final check (runner.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from toolkit.core.errors import InputError
from toolkit.swe_search.actions import Env, execute
from toolkit.swe_search.instances import Instance
from toolkit.swe_search.localize import coverage_spectrum
from toolkit.swe_search.testrun import RunReport, run_tests
from toolkit.swe_search.tree import NodeInfo, Tree, UCTParams
from toolkit.swe_search.workspace import Workspace

STRATEGIES = ("mcts", "linear", "linear-undo", "restarts")


class InstanceError(InputError):
    """A problem with one instance (its tests, patches or repository): reported per instance."""


@dataclass
class SearchConfig:
    strategy: str = "mcts"
    iterations: int = 100  # expansions (nodes) per instance
    uct: UCTParams = field(default_factory=UCTParams)
    max_finished: int = 3  # stop at this many finished nodes with distinct parents
    min_finished: int = 2  # the reward threshold stops the search only with this many
    reward_threshold: float = 100.0
    max_cost: int = 0  # LLM tokens (prompt + completion); 0 = no limit
    test_timeout: float = 60.0
    seed: int = 0
    restarts: int = 5
    path_credit: float = 0.5  # offline value: a fixed test on its base-commit path counts this much
    python: str | None = None  # the repository environment's interpreter


class Episode:
    """The tree, the workspace and the agents of one instance."""

    def __init__(self, inst: Instance, ws: Workspace, cfg: SearchConfig, proposer, valuer, *,
                 auto_test: bool, cost=None, cache: dict | None = None) -> None:
        self.inst, self.ws, self.cfg = inst, ws, cfg
        self.proposer, self.valuer = proposer, valuer
        self.auto_test = auto_test
        self.cost = cost or (lambda: 0)
        self.commands: list[str] = []  # every test command the search ran
        repro = proposer.reproduction(inst, ws.root) if hasattr(proposer, "reproduction") else {}
        ws.set_scratch_files(repro)
        self.test_ids = inst.visible_ids + [f"{path}::{name}" for path, (names, _) in repro.items()
                                            for name in ([names] if isinstance(names, str) else names)]
        self.env = Env(ws, self.test_ids, inst.test_cmd, cfg.test_timeout, python=cfg.python, log=self.commands)
        width = max(cfg.uct.max_expansions, cfg.restarts if cfg.strategy == "restarts" else 1)
        self.tree = Tree(width)
        self.reports: dict[int, RunReport] = {}
        self._by_state: dict[str, RunReport] = cache if cache is not None else {}
        self.finished: list[int] = []
        root = NodeInfo(commit=ws.base, kind="root", observation=f"Repository at {ws.base[:12]}.")
        self.tree.add_root(root)
        report = self._test()
        if not any(o != "missing" for o in report.outcomes.values()):
            tail = " | ".join(line.strip() for line in report.output.strip().splitlines()[-3:] if line.strip())
            raise InstanceError(f"{inst.where or inst.instance_id}: instance {inst.instance_id}: the test command "
                                f"gave no outcome for any test at base_commit (output: {tail[-300:] or 'none'})")
        root.observation += f"\nTests: {report.summary()}."
        if auto_test:
            self.reports[0] = report
            root.tests = dict(report.outcomes)
            root.reward = self.valuer.evaluate(self, 0)[0]
            root.rewarded = True
            self.tree.reward[0] = root.reward

    def _test(self) -> RunReport:
        key = f"{self.ws.tree_hash()}:{json.dumps(self.test_ids)}"
        if key in self._by_state:
            return self._by_state[key]
        report = run_tests(self.ws.root, self.test_ids, test_cmd=self.inst.test_cmd, timeout=self.cfg.test_timeout,
                           coverage_dir=self.ws.scratch, python=self.cfg.python, log=self.commands)
        coverage_spectrum(report, self.ws.root)  # keep it: the next run overwrites the data file
        self.ws.checkout(self.ws.head)
        self._by_state[key] = report
        return report

    def report_at(self, node: int) -> RunReport | None:
        """The latest test report on the path to `node`."""
        for i in reversed(self.tree.path(node)):
            if i in self.reports:
                return self.reports[i]
        return None

    def trajectory(self, node: int) -> list[NodeInfo]:
        return [self.tree.info[i] for i in self.tree.path(node)]

    def _duplicate_of(self, node: int, action: dict[str, Any], commit: str, changed: bool) -> int:
        """A sibling that took the same action, or reached the same code by an edit; -1 when none."""
        key = json.dumps({"name": action.get("name"), "args": action.get("args")}, sort_keys=True, default=str)
        state = self.ws.repo.git.rev_parse(f"{commit}^{{tree}}") if changed else None
        for sib in self.tree.children_of(node):
            info = self.tree.info[sib]
            other = json.dumps({"name": (info.action or {}).get("name"), "args": (info.action or {}).get("args")},
                               sort_keys=True, default=str)
            if other == key:
                return sib
            if state is not None and info.commit != self.tree.info[node].commit and \
                    self.ws.repo.git.rev_parse(f"{info.commit}^{{tree}}") == state:
                return sib
        return -1

    def expand(self, node: int) -> int | None:
        action = self.proposer.propose(self, node)
        if action is None:
            self.tree.terminal[node] = 1
            return None
        parent = self.tree.info[node]
        self.ws.checkout(parent.commit)
        obs = execute(self.env, {"name": action.get("name"), "args": action.get("args")})
        proposed, action = action, {k: v for k, v in action.items() if k not in ("files", "origin")}
        commit = self.ws.commit(f"step after node {node}: {action.get('name')}") if obs.changed else parent.commit
        kind = obs.terminal or ("step" if obs.ok else "error")
        text = obs.text
        report = obs.tests
        if obs.changed and self.auto_test:
            report = self._test()
            text += f"\nTests: {report.summary()}."
        duplicate = self._duplicate_of(node, action, commit, obs.changed)
        info = NodeInfo(action=action, observation=text, commit=commit, kind=kind, patch=self.ws.diff(commit),
                        duplicate_of=duplicate)
        child = self.tree.add_child(node, info)
        if hasattr(self.proposer, "on_child"):
            self.proposer.on_child(self, node, child, proposed, obs.changed)
        if report is not None:
            self.reports[child] = report
            info.tests = dict(report.outcomes)
        if duplicate >= 0:  # as in the reference: not valued, never expanded
            self.tree.terminal[child] = 1
            info.explanation = f"duplicate of node {duplicate}"
            return child
        value, explanation, feedback = self.valuer.evaluate(self, child)
        info.explanation, info.feedback = explanation, feedback
        self.tree.backpropagate(child, value)
        if obs.terminal:
            self.tree.terminal[child] = 1
            if obs.terminal == "finish":
                self.finished.append(child)
        return child

    def unique_finished(self, limit: int | None = None) -> list[int]:
        """Finished nodes, the first per parent (the reference counts finished trajectories this way); with
        `limit`, only among the first `limit` expansions (the tree a smaller budget would have built)."""
        seen, out = set(), []
        for n in self.finished:
            if limit is not None and n > limit:
                continue
            p = int(self.tree.parent[n])
            if p not in seen:
                seen.add(p)
                out.append(n)
        return out

    def _stop(self) -> bool:
        finished = self.unique_finished()
        if len(finished) >= self.cfg.max_finished:
            return True
        if any(self.tree.reward[f] >= self.cfg.reward_threshold for f in finished) and \
                len(finished) >= self.cfg.min_finished:
            return True
        return bool(self.cfg.max_cost) and self.cost() >= self.cfg.max_cost

    def run(self) -> None:
        if self.cfg.strategy == "mcts":
            self.run_mcts()
        elif self.cfg.strategy == "restarts":
            self.run_restarts()
        else:
            self.run_linear(self.cfg.iterations)

    def run_mcts(self) -> None:
        for _ in range(self.cfg.iterations):
            if self._stop():
                break
            node = self.tree.select(self.cfg.uct)
            if node < 0:
                break
            self.expand(node)

    def run_linear(self, budget: int) -> None:
        """One trajectory from the root; stops at a finish, a dead end or the budget (no global stop rule:
        a linear agent ends at its first finish)."""
        node = 0
        for _ in range(budget):
            if self.cfg.max_cost and self.cost() >= self.cfg.max_cost:
                break
            child = self.expand(node)
            if child is None or self.tree.terminal[child]:
                break
            node = child

    def run_restarts(self) -> None:
        k = max(1, min(self.cfg.restarts, self.cfg.iterations))
        used = 0
        for r in range(k):
            share = (self.cfg.iterations - used) // (k - r)  # equal shares; leftovers go to later runs
            before = self.tree.size
            self.run_linear(share)
            used += self.tree.size - before

    def path_stats(self, node: int, limit: int | None = None) -> list[tuple[int, float]]:
        """(visits, value sum) of each node on the path root..node, as backpropagation left them after the
        first `limit` expansions (all of them without a limit): every valued non-root node adds its reward
        to itself and its ancestors."""
        path = self.tree.path(node)
        if limit is None:
            return [(int(self.tree.visits[i]), float(self.tree.value_sum[i])) for i in path]
        on_path = {n: k for k, n in enumerate(path)}
        stats = [[0, 0.0] for _ in path]
        for j in range(1, min(self.tree.size, limit + 1)):
            info = self.tree.info[j]
            if not info.rewarded:
                continue
            i = j
            while i >= 0:
                if i in on_path:
                    stats[on_path[i]][0] += 1
                    stats[on_path[i]][1] += info.reward
                i = int(self.tree.parent[i])
        return [(v, s) for v, s in stats]

    def trajectory_mean_reward(self, node: int, limit: int | None = None) -> float:
        """The reference's Node.calculate_mean_reward: the mean of value/visits (0 when unvisited) over the
        nodes of the trajectory, root included."""
        stats = self.path_stats(node, limit)
        return sum(s / v if v else 0.0 for v, s in stats) / len(stats)

    def best_by_mean_reward(self, nodes: list[int], limit: int | None = None) -> int:
        """MeanAwardDiscriminator: the highest mean trajectory reward; ties to the first node (strict >)."""
        return max(nodes, key=lambda n: (self.trajectory_mean_reward(n, limit), -n))

    def candidates(self, limit: int | None = None) -> tuple[list[int], bool]:
        """Finished nodes with a non-empty patch (one per parent); else every valued node with one (flag False)."""
        done = [n for n in self.unique_finished(limit) if self.tree.info[n].patch.strip()]
        if done:
            return done, True
        end = self.tree.size if limit is None else min(self.tree.size, limit + 1)
        rest = [n for n in range(1, end)
                if self.tree.info[n].patch.strip() and self.tree.info[n].duplicate_of < 0]
        return rest, False

    def tree_record(self) -> list[dict[str, Any]]:
        return self.tree.to_json()
