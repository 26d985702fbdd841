"""The model-free agent: fault localization + mutations as the action proposer, test pass rate as the value.

The agent sees what a SWE-bench agent sees: the repository and the problem statement. Its tests are the
visible ones (PASS_TO_PASS) plus a reproduction test it writes from the problem statement's ```python
blocks that hold an `assert`, or else from examples written in prose ("`f(2)` should return `4`"; see
statement.py), kept out of every patch. It never runs FAIL_TO_PASS.

Proposals at a node, in order: `finish` when every target test passes and the code has changed; otherwise,
when the node's own edit did not make more target tests pass, undoing that edit (linear agent only) and
revising it (the other mutations of the same original line); then mutations of the most suspicious lines
(Ochiai over per-test coverage plus traceback lines and enclosing `def` lines, plus the lines of the
functions the statement names; ties shuffled by the seed), taken round-robin across lines, skipping edits
already tried at the node's children, edits already on the path, exact undos of ancestors' edits, and edits
that would give a code state the tree already holds.
"""

from __future__ import annotations

import ast
import hashlib
import random
import re
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from git.exc import GitCommandError

from toolkit.swe_search.localize import Suspect, localize
from toolkit.swe_search.mutate import mutations
from toolkit.swe_search.pathtrace import reproduction_paths
from toolkit.swe_search.statement import imports_for, named_functions, prose_checks, statement_scores

if TYPE_CHECKING:
    from toolkit.swe_search.search import Episode

TOP_LINES = 6
REPRO_PATH = "test_reproduce_issue.py"
REPRO_NAME = "test_reproduction"
CODE_BLOCK = re.compile(r"```(?:python|py)?\n(.*?)```", re.DOTALL)


def reproduction_test(problem_statement: str, root: Path | None = None, split: bool = False) -> str | None:
    """A pytest file made of the statement's code blocks that assert something, or (with the repository's
    `root`, when there is no such block) of its prose examples with imports of the functions they call;
    None when there is neither. With `split`, a body holding several top-level asserts becomes one test per
    assert (`test_reproduction_1`, ...), each with the statements before it but no other assert: the value
    then sees how many of the statement's checks hold, not only whether all do."""
    blocks = [b for b in CODE_BLOCK.findall(problem_statement) if re.search(r"^\s*assert\b", b, re.MULTILINE)]
    if not blocks and root is not None:
        checks = prose_checks(problem_statement)
        imports = imports_for(checks, root) if checks else []
        if checks and imports:
            blocks = ["\n".join(imports + checks)]
    if not blocks:
        return None
    body = "\n".join(textwrap.dedent(b).strip("\n") for b in blocks)
    parts = split_asserts(body) if split else None
    if parts:
        return "\n\n".join(f"def {REPRO_NAME}_{k}():\n{textwrap.indent(p, '    ')}\n"
                            for k, p in enumerate(parts, 1))
    return f"def {REPRO_NAME}():\n{textwrap.indent(body, '    ')}\n"


def split_asserts(body: str) -> list[str] | None:
    """One snippet per top-level assert of `body`: the other statements before it (setup, imports) plus that
    assert, in order; None when the body does not parse or holds fewer than two top-level asserts."""
    try:
        tree = ast.parse(body)
    except SyntaxError:
        return None
    if sum(isinstance(s, ast.Assert) for s in tree.body) < 2:
        return None
    setup: list[str] = []
    out = []
    for stmt in tree.body:
        text = ast.get_source_segment(body, stmt)
        if text is None:
            return None
        if isinstance(stmt, ast.Assert):
            out.append("\n".join(setup + [text]))
        else:
            setup.append(text)
    return out


def reproduction_names(text: str) -> list[str]:
    return re.findall(r"^def (test_\w+)\(", text, re.MULTILINE)


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def pass_value(outcomes: dict[str, str], credit: dict[str, float] | None = None) -> float:
    """Fraction of target tests passing, mapped to -100..100; a passing test counts `credit[test]` (default 1)."""
    if not outcomes:
        return -100.0
    credit = credit or {}
    frac = sum(credit.get(t, 1.0) for t, o in outcomes.items() if o == "passed") / len(outcomes)
    return round(200.0 * frac - 100.0, 4)


def edit_key(action: dict[str, Any]) -> tuple[str, str, str] | None:
    if action.get("name") != "string_replace":
        return None
    a = action["args"]
    return a["path"], a["old"], a["new"]


def unique_context(text: str, lines: list[str], index: int, new_line: str) -> tuple[str, str] | None:
    """(old, new) snippets around line `index` (0-based) that occur once in `text`; None if impossible."""
    for before in range(0, 4):
        lo = max(0, index - before)
        old_lines = lines[lo:index + 1]
        old = "\n".join(old_lines) + "\n"
        if text.count(old) == 1:
            return old, "\n".join(old_lines[:-1] + [new_line]) + "\n"
    return None


def merge_suspects(spectrum: list[Suspect], statement: dict[tuple[str, int], float]) -> list[Suspect]:
    """The spectrum's scores plus the statement's (lines of the functions it names): without a failing test
    the statement alone ranks the lines."""
    scores = {(s.path, s.line): s.score for s in spectrum}
    for key, score in statement.items():
        scores[key] = round(scores.get(key, 0.0) + score, 6)
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1]))
    return [Suspect(path, line, score) for (path, line), score in ranked]


def no_signal_note(ep: Episode) -> str:
    """Why the agent had nothing to go on, or '' when the base commit had a failing test of its own."""
    report = ep.reports.get(0)
    if report is None or any(o != "passed" for o in report.outcomes.values()):
        return ""
    repro = any(t.startswith(f"{REPRO_PATH}::") for t in ep.test_ids)
    why = ("the statement's reproduction passes at base_commit and so does every visible test" if repro else
           "the statement has no reproduction (no ```python block with an assert, no inline example such as "
           "`f(2)` should return `4`) and every visible test passes at base_commit")
    named = sorted({f"{n.path}:{n.name}" for n in named_functions(ep.inst.problem_statement, ep.ws.root)})
    edits = sum(1 for i in range(1, ep.tree.size) if edit_key(ep.tree.info[i].action or {}))
    if not named:
        return f"nothing attempted: {why}, and it names no function of the repository"
    return (f"no failing test to guide the search: {why}; {edits} edit(s) tried in the functions it names "
            f"({', '.join(named[:4])}{', ...' if len(named) > 4 else ''}), none checked by a test")


@dataclass
class OfflineProposer:
    """`undo`: propose undoing an edit that did not help. The linear agent needs it to back out of a dead
    end; MCTS backtracks by selection, so there it would only duplicate the parent's state."""

    seed: int = 0
    top_lines: int = TOP_LINES
    undo: bool = True
    _cache: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    # state fingerprints: per node, content hashes of the files it changed; a candidate whose result is a
    # state the tree already holds (e.g. the same two edits in the other order) is skipped
    _files: dict[int, dict[str, str]] = field(default_factory=lambda: {0: {}})
    _base: dict[str, str] = field(default_factory=dict)
    _seen: set[frozenset] = field(default_factory=lambda: {frozenset()})
    # per edited node: (path, the unique context of the line before any edit), for revisions
    _origin: dict[int, tuple[str, str]] = field(default_factory=dict)
    _statement: dict[tuple[str, int], float] | None = None  # line scores from the statement's names
    _base_text: dict[str, list[str]] = field(default_factory=dict)

    def _fingerprint(self, files: dict[str, str]) -> frozenset:
        return frozenset((p, h) for p, h in files.items() if h != self._base.get(p))

    def reproduction(self, inst, root: Path | None = None) -> dict[str, tuple[str, str]]:
        text = reproduction_test(inst.problem_statement, root, split=True)
        return {REPRO_PATH: (reproduction_names(text), text)} if text else {}

    def statement_lines(self, ep: Episode) -> dict[tuple[str, int], float]:
        """Scores of the lines of the functions the statement names, read once at the base commit (edits
        replace one line by one, so line numbers hold)."""
        if self._statement is None:
            ep.ws.checkout(ep.ws.base)
            self._statement = statement_scores(ep.inst.problem_statement, ep.ws.root)
        return self._statement

    def _base_line(self, ep: Episode, path: str, line: int) -> str | None:
        if path not in self._base_text:
            try:
                self._base_text[path] = ep.ws.repo.git.show(f"{ep.ws.base}:{path}").splitlines()
            except GitCommandError:  # a file the base commit lacks has no base line
                self._base_text[path] = []
        lines = self._base_text[path]
        return lines[line - 1] if 0 < line <= len(lines) else None

    def on_child(self, ep: Episode, node: int, child: int, action: dict[str, Any], changed: bool) -> None:
        if changed and action.get("origin"):
            self._origin[child] = action["origin"]
        files = action.get("files") if changed else None
        self._files[child] = dict(files) if files is not None else dict(self._files.get(node, {}))
        self._seen.add(self._fingerprint(self._files[child]))

    def candidates(self, ep: Episode, node: int) -> list[dict[str, Any]]:
        if node in self._cache:
            return self._cache[node]
        report = ep.report_at(node)
        info = ep.tree.info[node]
        out: list[dict[str, Any]] = []
        all_pass = report is not None and report.outcomes and all(o == "passed" for o in report.outcomes.values())
        if all_pass and info.patch.strip():
            out.append({"name": "finish", "args": {"reason": "all target tests pass"}})
        elif report is not None:
            parent = int(ep.tree.parent[node])
            key = edit_key(info.action or {})
            stalled = bool(key) and parent >= 0 and info.reward <= ep.tree.info[parent].reward
            if self.undo and stalled:
                path, old, new = key
                out.append({"name": "string_replace", "args": {"path": path, "old": new, "new": old},
                            "why": "undo the last edit: it did not make more tests pass", "undo": True,
                            "files": dict(self._files.get(parent, {}))})
            if stalled and node in self._origin:
                out += self._revisions(ep, node, key)
            out += self._mutations(ep, node, report)
        self._cache[node] = out
        return out

    def _revisions(self, ep: Episode, node: int, key: tuple[str, str, str]) -> list[dict[str, Any]]:
        """The node's edit did not help: the other mutations of the line it changed, each replacing it."""
        path, orig = self._origin[node]
        current = key[2]
        ep.ws.checkout(ep.tree.info[node].commit)
        text = (ep.ws.root / path).read_text(encoding="utf-8")
        if text.count(current) != 1:
            return []
        head = orig.rstrip("\n").split("\n")
        out = []
        for new_line in mutations(head[-1]):
            alt = "\n".join(head[:-1] + [new_line]) + "\n"
            if alt == current:
                continue
            files = {**self._files.get(node, {}), path: _digest(text.replace(current, alt, 1))}
            out.append({"name": "string_replace", "args": {"path": path, "old": current, "new": alt},
                        "why": f"revise the last edit of {path}: it did not make more tests pass",
                        "files": files, "origin": (path, orig)})
        return out

    def _mutations(self, ep: Episode, node: int, report) -> list[dict[str, Any]]:
        statement = self.statement_lines(ep)
        ep.ws.checkout(ep.tree.info[node].commit)
        suspects = merge_suspects(localize(report, ep.ws.root), statement)
        rng = random.Random(f"{self.seed}:{ep.tree.info[node].commit}")
        groups: dict[float, list] = {}
        for s in suspects:
            groups.setdefault(s.score, []).append(s)
        ordered = []
        for score in sorted(groups, reverse=True):
            group = groups[score]
            rng.shuffle(group)
            ordered += group
        per_line: list[list[dict[str, Any]]] = []
        texts: dict[str, str] = {}
        for s in ordered[: self.top_lines]:
            if s.path not in texts:
                texts[s.path] = (ep.ws.root / s.path).read_text(encoding="utf-8")
            text = texts[s.path]
            lines = text.splitlines()
            if not 0 < s.line <= len(lines) or lines[s.line - 1] != self._base_line(ep, s.path, s.line):
                continue  # a line edited on this path changes again only by revision: no drift (lo = 1, 2, 3...)
            group = []
            here = self._files.get(node, {})
            if s.path not in here:  # untouched on this path: the text is the base content
                self._base.setdefault(s.path, _digest(text))
            for new_line in mutations(lines[s.line - 1]):
                ctx = unique_context(text, lines, s.line - 1, new_line)
                if ctx is None:
                    continue
                files = {**here, s.path: _digest(text.replace(ctx[0], ctx[1], 1))}
                group.append({"name": "string_replace", "args": {"path": s.path, "old": ctx[0], "new": ctx[1]},
                              "why": f"mutate suspicious line {s.path}:{s.line} (score {s.score:g})",
                              "files": files, "origin": (s.path, ctx[0])})
            per_line.append(group)
        # round-robin over the suspicious lines: the k-th mutation of every line before the (k+1)-th of any
        return [g[k] for k in range(max(map(len, per_line), default=0)) for g in per_line if k < len(g)]

    def propose(self, ep: Episode, node: int) -> dict[str, Any] | None:
        tried = {edit_key(ep.tree.info[c].action or {}) for c in ep.tree.children_of(node)}
        tried |= {(ep.tree.info[c].action or {}).get("name") for c in ep.tree.children_of(node)}
        on_path, undos = set(), set()
        for i in ep.tree.path(node)[1:]:
            key = edit_key(ep.tree.info[i].action or {})
            if key:
                on_path.add(key)
                undos.add((key[0], key[2], key[1]))
        own = edit_key(ep.tree.info[node].action or {})
        for cand in self.candidates(ep, node):
            key = edit_key(cand)
            if key is None:
                if cand["name"] not in tried:
                    return cand
                continue
            if key in tried or key in on_path:
                continue
            is_own_undo = own is not None and key == (own[0], own[2], own[1])
            if key in undos and not (is_own_undo and self.undo):
                continue
            if not cand.get("undo") and "files" in cand and self._fingerprint(cand["files"]) in self._seen:
                continue
            return cand
        return None


UNCHANGED_PATH_CREDIT = 0.5


@dataclass
class OfflineValue:
    """Value = pass rate of the agent's tests (visible + reproduction) at the node's state, in -100..100, where
    a reproduction test that failed at the base commit and passes now counts `unchanged_credit` (half) when it
    runs the same source lines in the same order as at the base commit (pathtrace.py): the patch changed a
    value on its path, not the path, which is what a compensating constant does. `unchanged_credit` 1 gives
    the plain pass rate."""

    unchanged_credit: float = UNCHANGED_PATH_CREDIT

    def evaluate(self, ep: Episode, node: int) -> tuple[float, str, str]:
        report = ep.report_at(node)
        outcomes = report.outcomes if report is not None else {}
        same = self.same_path(ep, node, outcomes)
        value = pass_value(outcomes, {t: self.unchanged_credit for t in same})
        passing = sum(o == "passed" for o in outcomes.values())
        explanation = f"{passing}/{len(outcomes)} visible and reproduction tests pass"
        if same:
            explanation += (f"; {len(same)} of them failed at base_commit and pass on the same path (counted "
                            f"{self.unchanged_credit:g})")
        info = ep.tree.info[node]
        feedback = ""
        if info.kind == "step" and edit_key(info.action or {}):
            path, _, new = edit_key(info.action)
            feedback = f"Tried in {path}: {new.strip().splitlines()[-1].strip()} -> {explanation}"
        return value, explanation, feedback

    def same_path(self, ep: Episode, node: int, outcomes: dict[str, str]) -> list[str]:
        """Reproduction tests that failed at the base commit, pass at `node` and run the same path as there."""
        if self.unchanged_credit == 1.0 or node == 0 or 0 not in ep.reports:
            return []
        base = ep.reports[0].outcomes
        fixed = [t for t, o in outcomes.items() if o == "passed" and base.get(t, "passed") != "passed"
                 and t.startswith(f"{REPRO_PATH}::")]
        if not fixed:
            return []
        names = [t.split("::", 1)[1] for t in fixed]
        here = self._paths(ep, ep.tree.info[node].commit, names)
        there = self._paths(ep, ep.tree.info[0].commit, names)
        return [t for t, n in zip(fixed, names, strict=True) if n in here and here.get(n) == there.get(n)]

    def _paths(self, ep: Episode, commit: str, names: list[str]) -> dict[str, str]:
        ep.ws.checkout(commit)
        key = f"paths:{ep.ws.tree_hash()}"
        known = ep._by_state.setdefault(key, {})
        todo = [n for n in names if n not in known]
        if todo:
            known.update(reproduction_paths(ep.ws.root, REPRO_PATH, todo, ep.cfg.python or sys.executable,
                                            ep.cfg.test_timeout, ep.commands))
            for n in todo:
                known.setdefault(n, "")  # no answer from the tracer: never "the same path"
        return {n: known[n] for n in names if known[n]}
