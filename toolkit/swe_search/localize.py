"""Spectrum-based fault localization: Ochiai scores from per-test line coverage, plus the source
lines named in failing tests' tracebacks."""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from pathlib import Path

from toolkit.swe_search.testrun import RunReport

TRACE_LINE = re.compile(r"^([\w./\\-]+\.py):(\d+):", re.MULTILINE)
TRACE_BONUS = 0.25


@dataclass(frozen=True)
class Suspect:
    path: str
    line: int
    score: float


def is_test_file(rel: str) -> bool:
    parts = Path(rel).parts
    name = parts[-1] if parts else rel
    return "tests" in parts[:-1] or "test" in parts[:-1] or name.startswith("test_") or name.endswith("_test.py") \
        or name == "conftest.py"


def context_name(test_id: str, package: bool = False) -> str:
    """pytest id 'tests/test_x.py::TestA::test_b[1]' -> coverage test_function context 'test_x.TestA.test_b'
    (or 'tests.test_x.TestA.test_b' with `package`, for test directories that are packages)."""
    path, _, rest = test_id.partition("::")
    rest = rest.split("[", 1)[0]
    module = Path(path).with_suffix("").as_posix().replace("/", ".") if package else Path(path).stem
    return ".".join([module, *[p for p in rest.split("::") if p]])


def coverage_spectrum(report: RunReport, root: Path) -> dict[tuple[str, int], set[str]]:
    """(relative path, line) -> the set of test contexts that executed it (source files only)."""
    if report.spectrum is not None:
        return report.spectrum
    if report.coverage_file is None or not report.coverage_file.exists():
        return {}
    import coverage

    data = coverage.CoverageData(str(report.coverage_file))
    data.read()
    base = root.resolve()
    out: dict[tuple[str, int], set[str]] = {}
    for measured in data.measured_files():
        try:
            rel = Path(measured).resolve().relative_to(base).as_posix()
        except ValueError:
            continue
        if is_test_file(rel):
            continue
        for line, contexts in (data.contexts_by_lineno(measured) or {}).items():
            names = {c for c in contexts if c}
            if names:
                out[(rel, int(line))] = names
    report.spectrum = out
    return out


def traceback_lines(output: str, root: Path) -> set[tuple[str, int]]:
    hits = set()
    for m in TRACE_LINE.finditer(output):
        rel = m.group(1).replace("\\", "/")
        if Path(rel).is_absolute():
            try:
                rel = Path(rel).resolve().relative_to(root.resolve()).as_posix()
            except ValueError:
                continue
        if not is_test_file(rel) and (root / rel).is_file():
            hits.add((rel, int(m.group(2))))
    return hits


def signature_lines(scores: dict[tuple[str, int], float], root: Path) -> dict[tuple[str, int], float]:
    """The `def` line of each function holding suspicious lines, at half the best score inside it: defaults
    and parameters run at import time, so coverage never ties them to a test."""
    out: dict[tuple[str, int], float] = {}
    for path in sorted({p for p, _ in scores}):
        try:
            tree = ast.parse((root / path).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                inside = [v for (p, line), v in scores.items()
                          if p == path and node.lineno < line <= (node.end_lineno or node.lineno)]
                if inside:
                    out[(path, node.lineno)] = max(inside) / 2
    return out


def localize(report: RunReport, root: Path) -> list[Suspect]:
    """Source lines ranked by suspiciousness (highest first; ties by path and line)."""
    failing = {context_name(t) for t, o in report.outcomes.items() if o != "passed"}
    if not failing:
        return []
    n_failing = len(failing)
    # a test module inside a package is named with it (tests.test_x.test_y): both spellings count
    failing |= {context_name(t, package=True) for t, o in report.outcomes.items() if o != "passed"}
    scores: dict[tuple[str, int], float] = {}
    for key, contexts in coverage_spectrum(report, root).items():
        ef = len(contexts & failing)
        ep = len(contexts - failing)
        if ef:
            scores[key] = ef / math.sqrt(n_failing * (ef + ep))
    for key in traceback_lines(report.output, root):
        scores[key] = scores.get(key, 0.0) + TRACE_BONUS
    for key, score in signature_lines(scores, root).items():
        scores.setdefault(key, score)
    ranked = sorted(scores.items(), key=lambda kv: (-round(kv[1], 9), kv[0][0], kv[0][1]))
    return [Suspect(path, line, round(score, 6)) for (path, line), score in ranked]
