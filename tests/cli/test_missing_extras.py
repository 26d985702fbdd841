"""A base install (no extras): every subcommand that needs an extra ends with one line naming it and the pip
command, exit code 1, no traceback.

Every command line runs in one subprocess in which an import hook hides every module of every extra
(tests/support/hidden_extras.py). Each subcommand gets its cheapest invocation: its required arguments
filled with placeholders, so it fails at the first thing it needs; that is either the missing extra
(the one-line message asserted here) or, for a command that reads its input before it needs an extra, a
one-line input error (exit 2). The commands that run without any extra are listed and not run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "assets" / "aha" / "examples" / "samples.jsonl"

# Commands that need no extra at all (they would do their real work here, so they are not run).
CORE_ONLY = {
    "failgen tasks", "failgen modes", "chase-sql make-demo", "steer tasks", "gama games", "gama bench",
    "gama sweep", "compgen tasks", "compgen theory", "cogcom scenes", "sokoban gen", "rag claims",
    "ssm-limits tasks", "ssm-limits gen", "selfaware data", "selfaware world", "metacausal protocol",
}
# Real first commands (README examples) and the extra each must name.
NAMED = [
    (["failgen", "--task", "stack", "--episodes", "2"], "sim"),
    (["aha", "detect", str(SAMPLES)], "ml"),
    (["aha", "loop", "--task", "stack"], "sim"),
    (["matcha", "pair", "--setting", "homo2hetero"], "ml"),
    (["chase-sql", "ask", "How many stations are there?", "--db", str(SAMPLES)], "sql"),
    (["steer", "sweep", "--vector", str(ROOT / "assets/steer/vectors/mathematical-pca-diff.safetensors")], "ml"),
    (["maps", "generate", "--out-dir", "circuits"], "circuit"),
    (["metacausal", "regions"], "causal"),
    (["geomrel", "generate"], "geo"),
    (["dsg", "gen", "--out", "va"], "dsg"),
    (["swe-search", "make-bench"], "swe"),
    (["ssm-limits", "automaton", "--model", str(SAMPLES)], "logic"),
    (["selfaware", "probe", str(SAMPLES)], "selfaware"),
    (["sokoban", "probe", "--train", str(SAMPLES), "--test", str(SAMPLES), "--out", "p"], "ml"),
]


def _placeholder(param) -> str:
    choices = getattr(getattr(param, "type", None), "choices", None)
    if choices:
        return str(list(choices)[0])
    annotation = param.type_descriptor.annotation
    if annotation in (int, float):
        return "1"
    if "Path" in str(annotation):
        return "newdir" if param.name in ("out", "out_dir") else "in.jsonl"
    return "x"


def every_subcommand() -> list[list[str]]:
    """`reason SYSTEM COMMAND` with each required argument and option given a placeholder."""
    import typer.main

    from cli.main import app

    lines = []
    for system, group in typer.main.get_command(app).commands.items():
        for name, command in getattr(group, "commands", {}).items():
            if f"{system} {name}" in CORE_ONLY:
                continue
            argv = [system, name]
            for param in command.params:
                if param.required:
                    flag = [] if type(param).__name__.endswith("Argument") else [param.opts[0]]
                    argv += [*flag, _placeholder(param)]
            lines.append(argv)
    return lines


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict]:
    work = tmp_path_factory.mktemp("base-install")
    (work / "in.jsonl").write_text("{}\n")
    argvs = every_subcommand() + [argv for argv, _ in NAMED]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "400", "OMP_NUM_THREADS": "1"}
    r = subprocess.run([sys.executable, "-m", "tests.support.hidden_extras", json.dumps(argvs)], cwd=work, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return {" ".join(x["argv"]): x for x in json.loads(r.stdout)}


def test_every_subcommand_fails_in_one_line_naming_its_extra(results):
    assert len(results) > 100  # the whole CLI, not a sample
    bad = {}
    for line, res in results.items():
        err = [x for x in res["stderr"].splitlines() if x.strip()]
        one_line = len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in res["stderr"]
        names_extra = "install it with: pip install 'reason-toolkit[" in res["stderr"]
        if res["code"] == 0 or not one_line or (res["code"] != 2 and not names_extra):
            bad[line] = (res["code"], res["stderr"][-300:])
    assert not bad, f"not one line naming the extra (exit code, stderr): {bad}"
    extra_lines = [r for r in results.values() if "pip install 'reason-toolkit[" in r["stderr"]]
    assert len(extra_lines) > 80 and all(r["code"] == 1 for r in extra_lines)


@pytest.mark.parametrize(("argv", "extra"), NAMED, ids=[" ".join(a[:2]) for a, _ in NAMED])
def test_first_commands_name_the_extra_they_need(results, argv, extra):
    res = results[" ".join(argv)]
    assert res["code"] == 1 and res["stderr"].count("\n") == 1, res["stderr"]
    assert f"needs the '{extra}' extra" in res["stderr"]
    assert f"pip install 'reason-toolkit[{extra}]'" in res["stderr"]


def test_failgen_without_its_extra_writes_nothing(tmp_path):
    """The check comes before the output folder is made: a rerun after installing the extra finds none."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    argv = [["failgen", "--task", "stack", "--episodes", "1", "--out", "fg"]]
    r = subprocess.run([sys.executable, "-m", "tests.support.hidden_extras", json.dumps(argv)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    (res,) = json.loads(r.stdout)
    assert res["code"] == 1 and "'sim' extra" in res["stderr"]
    assert not (tmp_path / "fg").exists()
