"""The agent's actions on a workspace. Each returns an Observation; failures are observations, not errors.

Actions: find_function, find_class (ast), search_code, view_code, string_replace (old text must be
unique), create_file, run_tests, finish, reject.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.swe_search.localize import is_test_file
from toolkit.swe_search.testrun import RunReport, run_tests
from toolkit.swe_search.workspace import Workspace, resolve_path

ACTIONS = ("find_function", "find_class", "search_code", "view_code", "string_replace", "create_file",
           "run_tests", "finish", "reject")
EDITS = ("string_replace", "create_file")
MAX_HITS = 20
MAX_VIEW = 100


@dataclass
class Observation:
    text: str
    changed: bool = False  # the working tree was modified
    ok: bool = True
    terminal: str = ""  # "finish" | "reject" | ""
    tests: RunReport | None = None


@dataclass
class Env:
    """What an action needs: the workspace and the instance's tests."""

    ws: Workspace
    test_ids: list[str]
    test_cmd: str | None = None
    test_timeout: float = 60.0
    python: str | None = None
    log: list | None = None  # test commands run

    def agent_tests(self) -> list[str]:
        """The visible tests plus test files the trajectory added (e.g. a reproduction test)."""
        added = [f for f in self.ws.added_files() if f.endswith(".py") and is_test_file(f)]
        return list(dict.fromkeys(self.test_ids + added))


def python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if ".git" not in p.relative_to(root).parts)


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _definitions(env: Env, kind: type, name: str, class_name: str | None = None) -> str:
    root = env.ws.root
    hits = []
    for path in python_files(root):
        source = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        lines = source.splitlines()
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and class_name and node.name == class_name and kind is not ast.ClassDef:
                members = [n for n in node.body if isinstance(n, kind) and n.name == name]
            elif class_name is None or kind is ast.ClassDef:
                members = [node] if isinstance(node, kind) and node.name == name else []
            else:
                members = []
            for m in members:
                end = min(getattr(m, "end_lineno", m.lineno), m.lineno + 14)
                snippet = "\n".join(f"{i:4d} {lines[i - 1]}" for i in range(m.lineno, end + 1))
                hits.append(f"{_rel(root, path)}:{m.lineno}\n{snippet}")
    label = f"{class_name}.{name}" if class_name else name
    if not hits:
        return f"No definition of {label} found."
    return f"Found {len(hits)} definition(s) of {label}:\n" + "\n\n".join(hits[:MAX_HITS])


def find_function(env: Env, name: str, class_name: str | None = None) -> Observation:
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    text = _definitions(env, kinds, name, class_name)  # type: ignore[arg-type]
    return Observation(text, ok=not text.startswith("No "))


def find_class(env: Env, name: str) -> Observation:
    text = _definitions(env, ast.ClassDef, name)
    return Observation(text, ok=not text.startswith("No "))


def search_code(env: Env, query: str) -> Observation:
    if not query:
        return Observation("search_code needs a non-empty query.", ok=False)
    root, hits = env.ws.root, []
    for path in python_files(root):
        for i, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if query in line:
                hits.append(f"{_rel(root, path)}:{i}: {line.strip()}")
    if not hits:
        return Observation(f"No match for {query!r}.", ok=False)
    more = f"\n({len(hits) - MAX_HITS} more)" if len(hits) > MAX_HITS else ""
    return Observation("\n".join(hits[:MAX_HITS]) + more)


def view_code(env: Env, path: str, start: int = 1, end: int | None = None) -> Observation:
    target = resolve_path(env.ws.root, path)
    if target is None:
        return Observation(f"Refused: {path} is outside the repository.", ok=False)
    if not target.is_file():
        return Observation(f"No such file: {path}", ok=False)
    lines = target.read_text(encoding="utf-8", errors="replace").splitlines()
    start = max(1, int(start))
    end = min(len(lines), int(end) if end is not None else start + MAX_VIEW - 1, start + MAX_VIEW - 1)
    body = "\n".join(f"{i:4d} {lines[i - 1]}" for i in range(start, end + 1))
    return Observation(f"{path} lines {start}-{end} of {len(lines)}:\n{body}")


def string_replace(env: Env, path: str, old: str, new: str) -> Observation:
    target = resolve_path(env.ws.root, path)
    if target is None:
        return Observation(f"Refused: {path} is outside the repository; nothing was changed.", ok=False)
    if not target.is_file():
        return Observation(f"No such file: {path}; nothing was changed.", ok=False)
    text = target.read_text(encoding="utf-8")
    count = text.count(old) if old else 0
    if count == 0:
        return Observation(f"The old text was not found in {path}; nothing was changed.", ok=False)
    if count > 1:
        return Observation(f"The old text occurs {count} times in {path}; add surrounding lines so it is unique. "
                           "Nothing was changed.", ok=False)
    if old == new:
        return Observation("The new text equals the old text; nothing was changed.", ok=False)
    target.write_text(text.replace(old, new, 1), encoding="utf-8")
    line = text[: text.index(old)].count("\n") + 1
    return Observation(f"Replaced text in {path} at line {line}.", changed=True)


def create_file(env: Env, path: str, content: str) -> Observation:
    target = resolve_path(env.ws.root, path)
    if target is None:
        return Observation(f"Refused: {path} is outside the repository; nothing was created.", ok=False)
    if target.exists():
        return Observation(f"{path} already exists; use string_replace to change it.", ok=False)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    return Observation(f"Created {path} ({len(content.splitlines())} lines).", changed=True)


def run_tests_action(env: Env, coverage_dir: Path | None = None) -> Observation:
    report = run_tests(env.ws.root, env.agent_tests(), test_cmd=env.test_cmd, timeout=env.test_timeout,
                       coverage_dir=coverage_dir, python=env.python, log=env.log)
    env.ws.checkout(env.ws.head)  # drop files the tests wrote
    failing = [t for t, o in report.outcomes.items() if o != "passed"]
    head = f"Tests: {report.summary()}."
    if failing:
        head += " Failing: " + ", ".join(failing[:10])
    return Observation(f"{head}\n{report.output}", tests=report)


def finish(env: Env, reason: str = "") -> Observation:
    return Observation(f"Finished: {reason}".strip(), terminal="finish")


def reject(env: Env, reason: str = "") -> Observation:
    return Observation(f"Rejected: {reason}".strip(), terminal="reject")


def execute(env: Env, action: dict[str, Any]) -> Observation:
    """Run one action dict {"name": ..., "args": {...}}; unknown names and bad arguments are observations."""
    name, args = action.get("name"), action.get("args") or {}
    table = {"find_function": find_function, "find_class": find_class, "search_code": search_code,
             "view_code": view_code, "string_replace": string_replace, "create_file": create_file,
             "run_tests": lambda env: run_tests_action(env), "finish": finish, "reject": reject}
    fn = table.get(name)
    if fn is None:
        return Observation(f"Unknown action {name!r}; choose one of: {', '.join(ACTIONS)}.", ok=False)
    if not isinstance(args, dict):
        return Observation(f"Arguments of {name} must be an object.", ok=False)
    try:
        return fn(env, **args)
    except (TypeError, ValueError) as exc:
        return Observation(f"Bad arguments for {name}: {exc}", ok=False)
    except OSError as exc:
        return Observation(f"{name} failed: {exc.strerror or exc}", ok=False)
