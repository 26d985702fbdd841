"""What the offline agent reads from a problem statement besides its ```python blocks: the identifiers and
literals it names (to localise without a failing test) and examples written in prose (to check a fix).

- `named_functions`: functions and methods defined in the repository's source (not its tests) whose names
  the statement mentions, in backticks or as a call `name(`; their lines become suspects.
- `prose_checks`: inline examples such as "`f(2, 3)` should return `5`", "`f(2, 3)` returns `-1` instead
  of `5`" or "`f(2, 3) == 5` fails" become asserts of the reproduction test.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from toolkit.swe_search.localize import is_test_file

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SPAN = re.compile(r"`([^`\n]+)`")
CALL_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)\s*\(")
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
SHOULD = re.compile(r"`([^`\n]+\))`[^`.;]*?\b(?:should|must|ought to)\s+(?:return|give|be|equal)\s+`([^`\n]+)`")
INSTEAD = re.compile(r"`([^`\n]+\))`\s+(?:returns|gives|is)\s+`[^`\n]+`\s+(?:instead of|but should be|not)\s+"
                     r"`([^`\n]+)`")
IN_FUNCTION = 0.3  # a line of a function the statement names
LITERAL_BONUS = 0.1  # ... that also holds a literal the statement names
MAX_FILES = 2000  # source files scanned for the named functions


@dataclass(frozen=True)
class Named:
    path: str
    name: str
    first: int  # the def line
    last: int
    top: bool  # defined at module level (importable by name)


def mentioned_names(statement: str) -> set[str]:
    """Identifiers in backticks (each part of a dotted name, the callee of a call) and names called in prose."""
    names = set()
    for span in SPAN.findall(statement):
        names |= {m.group(1).split(".")[-1] for m in CALL_NAME.finditer(span)}
        if IDENT.fullmatch(span.strip()) or re.fullmatch(r"[\w.]+", span.strip()):
            names |= set(span.strip().split("."))
    names |= {m.group(1).split(".")[-1] for m in CALL_NAME.finditer(statement)}
    return {n for n in names if len(n) > 2 and not n.isdigit()}


def mentioned_literals(statement: str) -> set[str]:
    return set(NUMBER.findall(statement))


def source_files(root: Path) -> list[str]:
    out = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        if not any(part.startswith(".") for part in Path(rel).parts) and not is_test_file(rel):
            out.append(rel)
        if len(out) >= MAX_FILES:
            break
    return out


def named_functions(statement: str, root: Path) -> list[Named]:
    names = mentioned_names(statement)
    found = []
    for rel in source_files(root):
        try:
            text = (root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if not any(n in text for n in names):  # cheap filter before parsing
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in names:
                found.append(Named(rel, node.name, node.lineno, node.end_lineno or node.lineno, id(node) in top))
    return sorted(found, key=lambda n: (n.path, n.first))


def statement_scores(statement: str, root: Path) -> dict[tuple[str, int], float]:
    """(path, line) -> score for the body lines of the functions the statement names; a line that holds one
    of the statement's literals scores a little more."""
    literals = mentioned_literals(statement)
    scores: dict[tuple[str, int], float] = {}
    texts: dict[str, list[str]] = {}
    for fn in named_functions(statement, root):
        lines = texts.setdefault(fn.path, (root / fn.path).read_text(encoding="utf-8").splitlines())
        for line in range(fn.first + 1, fn.last + 1):
            text = lines[line - 1].strip()
            if not text or text.startswith("#"):
                continue
            bonus = LITERAL_BONUS if any(re.search(rf"(?<![\w.]){re.escape(x)}(?![\w.])", text)
                                         for x in literals) else 0.0
            scores[(fn.path, line)] = max(scores.get((fn.path, line), 0.0), IN_FUNCTION + bonus)
    return scores


def _expression(text: str) -> ast.expr | None:
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None


def prose_checks(statement: str) -> list[str]:
    """Assert statements from inline examples (see the module docstring); calls only, literals as given."""
    checks: list[str] = []
    for pattern in (SHOULD, INSTEAD):
        for call, value in pattern.findall(statement):
            if isinstance(_expression(call), ast.Call) and _expression(value) is not None:
                checks.append(f"assert {call.strip()} == {value.strip()}")
    for span in SPAN.findall(statement):
        expr = _expression(span)
        if isinstance(expr, ast.Compare) and any(isinstance(n, ast.Call) for n in ast.walk(expr)):
            checks.append(f"assert {span.strip()}")
    return list(dict.fromkeys(checks))


def imports_for(checks: list[str], root: Path) -> list[str]:
    """`from module import name` for each function the checks call that the repository's source defines."""
    called = {m.group(1) for c in checks for m in re.finditer(r"(?<![\w.])([A-Za-z_]\w*)\s*\(", c)}
    out = []
    for fn in named_functions(" ".join(f"`{n}`" for n in sorted(called)), root):
        module = Path(fn.path).with_suffix("").as_posix().replace("/", ".")
        module = module[: -len(".__init__")] if module.endswith(".__init__") else module
        line = f"from {module} import {fn.name}"
        if fn.top and fn.name in called and line not in out:
            out.append(line)
    return out
