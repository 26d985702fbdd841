"""Running a project's tests: own process group, a timeout that kills the whole group, trimmed output,
per-test outcomes from a JUnit XML report and, optionally, per-test line coverage.

Any test command works (leading `VAR=value` words set its environment): `python` / `python3` / `{python}`
become the repository environment's interpreter, `pytest` becomes `<interpreter> -m pytest`, and a pytest
command gets `--junitxml=<report>` appended. Another command writes its report to the path given by
`{junitxml}` (or $REASON_JUNITXML); failing that, pytest's `-rA` summary lines in the output are read."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_TEST_CMD = "python -m pytest -q -p no:cacheprovider --tb=short"
SUMMARY = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S+)")
HEAD, TAIL = 1500, 3500
# variables that change what a test run prints; CI and BUILD_NUMBER make pytest stop truncating summary lines
OUTPUT_SHAPING = {"COLUMNS", "LINES", "TERM", "PY_COLORS", "FORCE_COLOR", "NO_COLOR", "PYTHONHASHSEED", "CI",
                  "BUILD_NUMBER", "PYTHONWARNINGS", "PYTHONDEVMODE", "PYTHONOPTIMIZE", "PYTHONIOENCODING"}
TIMING = re.compile(r" in \d+(?:\.\d+)?s(?: \(\d+:\d+:\d+\))?")
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")  # object reprs in assertion messages


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
    """Drop what varies between identical runs: durations, object addresses and the temporary clone's path."""
    text = text.replace(str(root) + os.sep, "").replace(str(root), ".")
    return ADDRESS.sub(">", TIMING.sub("", text))


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


FORKED = False  # use_forked_pytest(): pytest in forked children of this process (benchmark sweeps)
PYTHON_NAMES = {"python", "python3", "{python}"}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def command_env(test_cmd: str | None) -> dict[str, str]:
    """The leading `VAR=value` words of a test command, as a shell would export them."""
    out = {}
    for word in shlex.split(test_cmd or DEFAULT_TEST_CMD):
        if not ASSIGNMENT.match(word):
            break
        name, _, value = word.partition("=")
        out[name] = value
    return out


def use_forked_pytest(on: bool = True) -> None:
    """Run `<this python> -m pytest` commands in forked children of this process (forked_pytest.py)."""
    global FORKED
    FORKED = on


def build_test_argv(test_cmd: str | None, test_ids: list[str], junit: Path | None = None,
                    python: str | None = None) -> list[str]:
    """The test command as argv for the repository's interpreter `python` (default: this one), with a JUnit
    report written to `junit` and the test ids appended."""
    python = python or sys.executable
    argv = shlex.split(test_cmd or DEFAULT_TEST_CMD)
    while argv and ASSIGNMENT.match(argv[0]):  # leading VAR=value words set the environment (see command_env)
        argv = argv[1:]
    if argv and argv[0] in PYTHON_NAMES:
        argv[0] = python
    elif argv and argv[0] == "pytest":
        argv = [python, "-m", "pytest", *argv[1:]]
    if junit is not None:
        placeholder = any("{junitxml}" in a for a in argv)
        argv = [a.replace("{junitxml}", str(junit)) for a in argv]
        if not placeholder and is_pytest(argv) and not any(a.startswith("--junitxml") for a in argv):
            argv.append(f"--junitxml={junit}")
    return argv + list(test_ids)


def is_pytest(argv: list[str]) -> bool:
    return len(argv) >= 3 and argv[1:3] == ["-m", "pytest"]


def with_coverage(argv: list[str], rcfile: Path) -> list[str] | None:
    """Wrap a `<python> -m pytest ...` command in `coverage run`; None when the command has another shape."""
    if is_pytest(argv):
        return [argv[0], "-m", "coverage", "run", f"--rcfile={rcfile}", "--source=.", *argv[1:]]
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
              coverage_dir: Path | None = None, python: str | None = None, log: list | None = None) -> RunReport:
    """Run the given tests (all tests when `test_ids` is empty); with coverage_dir, also record per-test line
    coverage there. `log` collects each command line run (the clone's path shown as '.')."""
    scratch = Path(tempfile.mkdtemp(prefix="reason-junit-"))
    try:
        return _run_tests(root, test_ids, test_cmd, timeout, coverage_dir, python, log, scratch / "report.xml")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run_tests(root, test_ids, test_cmd, timeout, coverage_dir, python, log, junit: Path) -> RunReport:
    argv = build_test_argv(test_cmd, test_ids, junit, python)
    if log is not None:
        log.append(" ".join(shlex.quote(a.replace(str(junit), "{junitxml}")) for a in argv))
    cov_file = rc = None
    pytest_args = argv[3:] if is_pytest(argv) and argv[0] == sys.executable else None
    if coverage_dir is not None:
        rc = coverage_dir / "coveragerc"
        rc.write_text("[run]\ndynamic_context = test_function\n", encoding="utf-8")
        wrapped = with_coverage(argv, rc)
        if wrapped is not None:
            argv, cov_file = wrapped, coverage_dir / "coverage.data"
            cov_file.unlink(missing_ok=True)
    env = build_test_env(root, cov_file)
    env.update(command_env(test_cmd))
    env["REASON_JUNITXML"] = str(junit)
    if FORKED and pytest_args is not None:
        from toolkit.swe_search.forked_pytest import run_forked

        result = run_forked(pytest_args, root, timeout, env, rc if cov_file else None, junit.with_suffix(".out"))
    else:
        result = run_command(argv, root, timeout, env)
    found = parse_junit(junit) if junit.exists() else summary_outcomes(result.output)
    outcomes = match_outcomes(found, test_ids)
    text = result.output.replace(str(junit), "{junitxml}")  # a temporary path: keep outputs reproducible
    report = RunReport(outcomes, truncate(sanitize(text, root)), result.timed_out)
    if cov_file is not None and cov_file.exists():
        report.coverage_file = cov_file
    return report


def summary_outcomes(output: str) -> dict[str, str]:
    """Outcomes from pytest's `-rA` short summary lines (for commands that write no JUnit report)."""
    found = {}
    for line in output.splitlines():
        m = SUMMARY.match(line)
        if m:
            found[m.group(2)] = {"PASSED": "passed", "XPASS": "passed"}.get(m.group(1), "failed")
    return found


def parse_junit(path: Path) -> dict[str, str]:
    """Test key -> passed | failed | skipped from a JUnit XML report; the key is `classname.name` (pytest
    writes `tests.test_x.TestA` / `test_b[1]`). An unreadable report yields nothing."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError):
        return {}
    found = {}
    for case in root.iter("testcase"):
        name = case.get("name", "")
        classname = case.get("classname", "")
        key = f"{classname}.{name}" if classname else name
        tags = {child.tag for child in case}
        if tags & {"failure", "error"}:
            outcome = "failed"
        elif "skipped" in tags:
            outcome = "skipped"
        else:
            outcome = "passed"
        if found.get(key) != "failed":  # a test that errors in teardown appears twice: failure wins
            found[key] = outcome
    return found


def junit_key(test_id: str) -> str:
    """pytest id 'tests/test_x.py::TestA::test_b[1]' -> JUnit 'tests.test_x.TestA.test_b[1]'."""
    path, sep, rest = test_id.partition("::")
    if not sep:
        return test_id
    module = path[:-3] if path.endswith(".py") else path
    return ".".join([module.replace("/", ".").replace("\\", "."), *rest.split("::")])


def match_outcomes(found: dict[str, str], test_ids: list[str]) -> dict[str, str]:
    """Outcomes of the requested tests ('missing' when absent); every reported test when none was requested."""
    if not test_ids:
        return dict(sorted(found.items()))
    out = {}
    for test_id in test_ids:
        if "::" not in test_id and test_id.endswith(".py"):  # a whole file: each of its tests
            prefix = junit_key(test_id + "::")
            inside = {k: v for k, v in found.items() if k.startswith(prefix) or k.startswith(test_id + "::")}
            out.update(inside or {test_id: "missing"})
            continue
        out[test_id] = found.get(test_id) or found.get(junit_key(test_id)) or "missing"
    return out
