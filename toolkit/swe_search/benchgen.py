"""Build the benchmark: one git bundle per project (its single commit holds the buggy code and the visible
tests) and an instances.jsonl in the SWE-bench dataset's published form (FAIL_TO_PASS / PASS_TO_PASS as JSON
strings, `test_patch` adding the hidden tests, `patch` the reference fix, `version`,
`environment_setup_commit`), plus `family` and `trap_patch`. Fixed author and dates make the output
reproducible. `verify` checks every instance's promises with the real test runner."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from toolkit.core.errors import RuntimeFailure
from toolkit.core.records import RecordWriter
from toolkit.swe_search.bench_families import all_projects

# plugins of the running environment play no part in these tiny projects; not loading them halves a run
BENCH_TEST_CMD = "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python -m pytest -q -p no:cacheprovider --tb=short"
DATE = "2025-01-01T00:00:00+00:00"
GIT_ENV = {"GIT_AUTHOR_NAME": "reason", "GIT_AUTHOR_EMAIL": "reason@localhost", "GIT_AUTHOR_DATE": DATE,
           "GIT_COMMITTER_NAME": "reason", "GIT_COMMITTER_EMAIL": "reason@localhost", "GIT_COMMITTER_DATE": DATE,
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def _git(cwd: Path, *args: str, raw: bool = False) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeFailure(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc.stdout if raw else proc.stdout.strip()


def buggy_files(project: dict[str, Any]) -> dict[str, str]:
    files = dict(project["files"])
    for path, good, bad in project["bugs"]:
        if files[path].count(good) != 1:
            raise RuntimeFailure(f"project {project['name']}: bug text {good!r} is not unique in {path}")
        files[path] = files[path].replace(good, bad, 1)
    return files


def _diff_of(root: Path, changes: dict[str, str]) -> str:
    """The patch that writes `changes` ({path: content}) over the committed state; the tree is reset after."""
    for path, content in changes.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(content, encoding="utf-8")
    _git(root, "add", "-A", "-N")
    patch = _git(root, "diff", "--no-color", raw=True)
    _git(root, "reset", "--quiet")
    _git(root, "checkout", "--quiet", "--", ".")
    _git(root, "clean", "-fdq")
    return patch


def build_project(project: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="reason-swegen-"))
    try:
        root = work / project["name"]
        root.mkdir()
        _git(root, "init", "--quiet", "--initial-branch=main")
        buggy = buggy_files(project)
        for path, content in sorted(buggy.items()):
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(content, encoding="utf-8")
        (root / ".gitignore").write_text("__pycache__/\n*.pyc\n", encoding="utf-8")
        _git(root, "add", "-A")
        _git(root, "commit", "--quiet", "-m", f"{project['name']}: initial version")
        commit = _git(root, "rev-parse", "HEAD")
        patch = _diff_of(root, {p: c for p, c in project["files"].items() if c != buggy[p]})
        test_patch = _diff_of(root, {"tests/test_issue.py": project["hidden"]})
        trap_patch = ""
        if project["trap"]:
            path, old, new = project["trap"]
            if buggy[path].count(old + "\n") != 1:
                raise RuntimeFailure(f"project {project['name']}: trap line {old!r} is not unique in {path}")
            trap_patch = _diff_of(root, {path: buggy[path].replace(old + "\n", new + "\n", 1)})
        bundle = out_dir / "repos" / f"{project['name']}.bundle"
        bundle.parent.mkdir(parents=True, exist_ok=True)
        _git(root, "bundle", "create", "--quiet", str(bundle), "main")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"instance_id": f"bench__{project['name']}", "repo": f"repos/{project['name']}.bundle",
            "base_commit": commit, "problem_statement": project["problem"],
            "FAIL_TO_PASS": json.dumps(project["hidden_ids"]), "PASS_TO_PASS": json.dumps(project["visible_ids"]),
            "test_patch": test_patch, "patch": patch, "version": "0.1", "environment_setup_commit": commit,
            "test_cmd": BENCH_TEST_CMD, "family": project["family"], "edits": len(project["bugs"]),
            "trap_patch": trap_patch}


def generate(out_dir: Path) -> list[dict[str, Any]]:
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    old = out_dir / "repos"
    if old.is_dir():
        for bundle in old.glob("*.bundle"):
            bundle.unlink()
    rows = [build_project(p, out_dir) for p in all_projects()]
    with RecordWriter(out_dir / "instances.jsonl") as writer:
        for row in rows:
            writer.write(row)
    return rows


def verify(instances: Path) -> list[str]:
    """Problems with the benchmark's promises (empty when all hold): FAIL_TO_PASS fails at base_commit and
    passes with the reference patch, PASS_TO_PASS passes in both; the trap passes the visible tests and the
    statement's reproduction and fails a hidden test."""
    from toolkit.swe_search.instances import load_instances
    from toolkit.swe_search.offline import REPRO_NAME, REPRO_PATH, reproduction_test
    from toolkit.swe_search.testrun import run_tests
    from toolkit.swe_search.workspace import Workspace

    rows = {json.loads(line)["instance_id"]: json.loads(line) for line in Path(instances).read_text().splitlines()}
    problems = []
    for inst in load_instances(instances):
        row = rows[inst.instance_id]
        with Workspace(inst.repo, inst.base_commit, inst.instance_id) as ws:
            repro = reproduction_test(inst.problem_statement, ws.root)
            if repro is None:
                problems.append(f"{inst.instance_id}: no reproduction can be read from the statement")
                continue
            def outcomes(patch: str, ws=ws, inst=inst, repro=repro) -> dict[str, str]:
                """The hidden, visible and reproduction tests with `patch` applied."""
                ws.apply_on_base(patch)
                ws.apply(inst.test_patch, "test_patch")
                (ws.root / REPRO_PATH).write_text(repro, encoding="utf-8")
                ids = inst.test_ids + [f"{REPRO_PATH}::{REPRO_NAME}"]
                return run_tests(ws.root, ids, test_cmd=inst.test_cmd, timeout=120).outcomes

            base, gold = outcomes(""), outcomes(row["patch"])
            repro_id = f"{REPRO_PATH}::{REPRO_NAME}"
            if base[repro_id] == "passed" or gold[repro_id] != "passed":
                problems.append(f"{inst.instance_id}: reproduction {base[repro_id]} at base, "
                                f"{gold[repro_id]} fixed")
            for t in inst.fail_to_pass:
                if base[t] == "passed" or gold[t] != "passed":
                    problems.append(f"{inst.instance_id}: FAIL_TO_PASS {t}: {base[t]} at base, {gold[t]} fixed")
            for t in inst.pass_to_pass:
                if base[t] != "passed" or gold[t] != "passed":
                    problems.append(f"{inst.instance_id}: PASS_TO_PASS {t}: {base[t]} at base, {gold[t]} fixed")
            if row.get("trap_patch"):
                trap = outcomes(row["trap_patch"])
                if any(trap[t] != "passed" for t in inst.pass_to_pass + [repro_id]):
                    problems.append(f"{inst.instance_id}: the trap fails a visible or reproduction test")
                if all(trap[t] == "passed" for t in inst.fail_to_pass):
                    problems.append(f"{inst.instance_id}: the trap passes every hidden test")
    return problems
