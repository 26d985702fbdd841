"""Run `reason` commands as a base install would: every module of every optional extra hidden.

    python -m tests.support.hidden_extras '[["failgen", "--episodes", "1"], ...]'

runs each command line through cli.main.main in this process, after an import hook hides the modules, and
prints one JSON list: per command its exit code, stderr and the modules it tried to import while hidden.
The hidden modules are read from pyproject.toml's extras and the installed distributions' metadata, not
from toolkit.core.extras, so a module that table misses is still hidden here.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.metadata
import io
import json
import re
import signal
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def extra_modules() -> dict[str, set[str]]:
    """Top-level module -> the extras whose distributions install it (the dev extra aside)."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    core = {_norm(re.split(r"[\s\[<>=!~;]", d.strip(), maxsplit=1)[0])
            for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]}
    by_dist: dict[str, set[str]] = {}
    for module, dists in importlib.metadata.packages_distributions().items():
        if module.isidentifier():
            for dist in dists:
                by_dist.setdefault(_norm(dist), set()).add(module)
    out: dict[str, set[str]] = {}
    for extra, specs in extras.items():
        if extra in ("dev", "all"):
            continue
        for spec in specs:
            dist = _norm(re.split(r"[\s\[<>=!~;]", spec.strip(), maxsplit=1)[0])
            if dist not in core:
                for module in by_dist.get(dist, ()):
                    out.setdefault(module, set()).add(extra)
    return out


class _Hide:
    """Stands in for the meta-path finders: a hidden top-level module is not found (find_spec gives None,
    import raises ModuleNotFoundError); any other name goes to the finders it replaced."""

    def __init__(self, hidden: set[str], finders: list) -> None:
        self.hidden, self.finders, self.tried = hidden, finders, set()

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.hidden:
            self.tried.add(name.split(".")[0])
            return None
        for finder in self.finders:
            spec = finder.find_spec(name, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None:
                return spec
        return None


def _timeout(signum, frame):
    raise TimeoutError("the command ran past its time limit")


def run(argvs: list[list[str]], limit_s: int = 30) -> list[dict]:
    hide = _Hide(set(extra_modules()), list(sys.meta_path))
    sys.meta_path[:] = [hide]
    import typer.main

    import cli.main

    cli.main.app = typer.main.get_command(cli.main.app)  # built once, not once per command line (same calls)

    signal.signal(signal.SIGALRM, _timeout)
    results = []
    for argv in argvs:
        hide.tried = set()
        err, out = io.StringIO(), io.StringIO()
        code = 0
        sys.argv = ["reason", *argv]
        signal.alarm(limit_s)
        start = time.monotonic()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                cli.main.main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException as exc:  # noqa: BLE001 - a traceback is what the test reports
            code = -1
            err.write(f"{type(exc).__name__}: {exc}\n")
        finally:
            signal.alarm(0)
        results.append({"argv": argv, "code": code, "stderr": err.getvalue(), "tried": sorted(hide.tried),
                        "seconds": round(time.monotonic() - start, 2)})
    return results


if __name__ == "__main__":
    print(json.dumps(run(json.loads(sys.argv[1]))))
