"""Running a project's tests: own process group, a timeout that kills the whole group, trimmed output,
per-test outcomes from pytest's `-rA` summary and, optionally, per-test line coverage."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_TEST_CMD = "{python} -m pytest -q -rA -p no:cacheprovider --tb=short"
SUMMARY = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S+)")
HEAD, TAIL = 1500, 3500
# variables that change what a test run prints; CI and BUILD_NUMBER make pytest stop truncating summary lines
OUTPUT_SHAPING = {"COLUMNS", "LINES", "TERM", "PY_COLORS", "FORCE_COLOR", "NO_COLOR", "PYTHONHASHSEED", "CI",
                  "BUILD_NUMBER", "PYTHONWARNINGS", "PYTHONDEVMODE", "PYTHONOPTIMIZE", "PYTHONIOENCODING"}
TIMING = re.compile(r" in \d+(?:\.\d+)?s(?: \(\d+:\d+:\d+\))?")


@dataclass
class CommandResult:
    returncode: int
    output: str
    timed_out: bool


@dataclass
class RunReport:
    outcomes: dict[str, str] = field(default_factory=dict)  # test id -> passed | failed | error | missing
    output: str = ""
    timed_out: bool = False
    coverage_file: Path | None = None
    spectrum: dict | None = None  # (path, line) -> test contexts, read right after the run

    def passed(self, test_id: str) -> bool:
        return self.outcomes.get(test_id) == "passed"

    def summary(self) -> str:
        counts: dict[str, int] = {}
        for outcome in self.outcomes.values():
            counts[outcome] = counts.get(outcome, 0) + 1
        text = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no tests ran"
        return text + (" (timed out)" if self.timed_out else "")


def truncate(text: str, head: int = HEAD, tail: int = TAIL) -> str:
    """Keep the start and the end (where pytest puts failures and the summary)."""
    if len(text) <= head + tail:
        return text
    cut = len(text) - head - tail
    return f"{text[:head]}\n[... {cut} characters cut ...]\n{text[-tail:]}"


def sanitize(text: str, root: Path) -> str:
    """Drop what varies between identical runs: durations and the temporary clone's path."""
    text = text.replace(str(root) + os.sep, "").replace(str(root), ".")
    return TIMING.sub("", text)


def run_command(argv: list[str], cwd: Path, timeout: float, env: dict[str, str] | None = None) -> CommandResult:
    """Run argv in its own process group; on timeout kill the whole group (children included)."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = proc.communicate()
        timed_out = True
    text = out.decode("utf-8", errors="replace")
    if timed_out:
        text += f"\n[test command timed out after {timeout:g} s and was killed]"
    return CommandResult(proc.returncode, text, timed_out)


def build_test_argv(test_cmd: str | None, test_ids: list[str]) -> list[str]:
    """The test command as argv: '{python}' becomes this interpreter; the test ids are appended."""
    argv = [sys.executable if part == "{python}" else part for part in shlex.split(test_cmd or DEFAULT_TEST_CMD)]
    return argv + list(test_ids)


def with_coverage(argv: list[str], rcfile: Path) -> list[str] | None:
    """Wrap a `python -m pytest ...` command in `coverage run`; None when the command has another shape."""
    if len(argv) >= 3 and argv[0] == sys.executable and argv[1:3] == ["-m", "pytest"]:
        return [sys.executable, "-m", "coverage", "run", f"--rcfile={rcfile}", "--source=.", *argv[1:]]
    return None


def build_test_env(root: Path, coverage_file: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("COV_CORE", "PYTEST_")) and k not in OUTPUT_SHAPING}
    # fixed width, colour and hash seed: the output goes into LLM prompts that must not depend on the terminal
    env.update(COLUMNS="80", LINES="24", TERM="dumb", NO_COLOR="1", PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    env["PYTHONPATH"] = str(root)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if coverage_file is not None:
        env["COVERAGE_FILE"] = str(coverage_file)
    return env


def run_tests(root: Path, test_ids: list[str], *, test_cmd: str | None = None, timeout: float = 60.0,
              coverage_dir: Path | None = None) -> RunReport:
    """Run the given tests; with coverage_dir, also record per-test line coverage there."""
    argv = build_test_argv(test_cmd, test_ids)
    cov_file = None
    if coverage_dir is not None:
        rc = coverage_dir / "coveragerc"
        rc.write_text("[run]\ndynamic_context = test_function\n", encoding="utf-8")
        wrapped = with_coverage(argv, rc)
        if wrapped is not None:
            argv, cov_file = wrapped, coverage_dir / "coverage.data"
            cov_file.unlink(missing_ok=True)
    result = run_command(argv, root, timeout, build_test_env(root, cov_file))
    outcomes = {}
    for line in result.output.splitlines():
        m = SUMMARY.match(line)
        if m:
            outcomes[m.group(2)] = {"PASSED": "passed", "XPASS": "passed"}.get(m.group(1), "failed")
    for test_id in test_ids:
        outcomes.setdefault(test_id, "missing")
    report = RunReport({t: outcomes[t] for t in test_ids}, truncate(sanitize(result.output, root)), result.timed_out)
    if cov_file is not None and cov_file.exists():
        report.coverage_file = cov_file
    return report
