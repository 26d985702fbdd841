"""pytest (and coverage) in a forked child of a warm process: the same run as `python -m coverage run -m
pytest ...` without starting an interpreter and importing pytest and coverage each time. For benchmark
sweeps that run thousands of tiny test suites; the calling process must not have imported the project
under test (its modules would be shared with the child). Linux/macOS only (os.fork)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from toolkit.swe_search.testrun import CommandResult


def run_forked(pytest_args: list[str], cwd: Path, timeout: float, env: dict[str, str],
               coverage_rc: Path | None, out_file: Path) -> CommandResult:
    import coverage  # noqa: F401 - imported once here, inherited by every child
    import pytest  # noqa: F401

    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.setsid()
            fd = os.open(out_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.chdir(cwd)
            os.environ.clear()
            os.environ.update(env)
            sys.dont_write_bytecode = True
            sys.path.insert(0, str(cwd))
            sys.argv = ["pytest", *pytest_args]
            code = _child(pytest_args, coverage_rc, env)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(int(code) if isinstance(code, int) else 1)
    deadline = time.monotonic() + timeout
    status, timed_out = None, False
    while status is None:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
        elif time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, status = os.waitpid(pid, 0)
            timed_out = True
        else:
            time.sleep(0.01)
    text = out_file.read_text(encoding="utf-8", errors="replace") if out_file.exists() else ""
    if timed_out:
        text += f"\n[test command timed out after {timeout:g} s and was killed]"
    return CommandResult(os.waitstatus_to_exitcode(status), text, timed_out)


def _child(pytest_args: list[str], coverage_rc: Path | None, env: dict[str, str]) -> int:
    import pytest

    if coverage_rc is None:
        return int(pytest.main(pytest_args))
    import coverage

    cov = coverage.Coverage(data_file=env.get("COVERAGE_FILE"), config_file=str(coverage_rc), source=["."])
    cov.start()
    try:
        return int(pytest.main(pytest_args))
    finally:
        cov.stop()
        cov.save()
