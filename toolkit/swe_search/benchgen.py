"""Build the mini-benchmark: one git bundle per project (its single commit holds the buggy code and the
tests) and an instances.jsonl in SWE-bench format. Fixed author and dates make the output reproducible."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from toolkit.core.errors import RuntimeFailure
from toolkit.core.records import RecordWriter
from toolkit.swe_search.bench_projects import PROJECTS

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


def gold_patch(root: Path, project: dict[str, Any]) -> str:
    """The fix as a patch against the buggy commit (the SWE-bench `patch` field)."""
    for path, content in project["files"].items():
        (root / path).write_text(content, encoding="utf-8")
    patch = _git(root, "diff", "--no-color", raw=True)
    _git(root, "checkout", "--quiet", "--", ".")
    return patch


def build_project(project: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="reason-swegen-"))
    try:
        root = work / project["name"]
        root.mkdir()
        _git(root, "init", "--quiet", "--initial-branch=main")
        for path, content in sorted(buggy_files(project).items()):
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(content, encoding="utf-8")
        (root / ".gitignore").write_text("__pycache__/\n*.pyc\n", encoding="utf-8")
        _git(root, "add", "-A")
        _git(root, "commit", "--quiet", "-m", f"{project['name']}: initial version")
        commit = _git(root, "rev-parse", "HEAD")
        patch = gold_patch(root, project)
        bundle = out_dir / "repos" / f"{project['name']}.bundle"
        bundle.parent.mkdir(parents=True, exist_ok=True)
        _git(root, "bundle", "create", "--quiet", str(bundle), "main")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"instance_id": f"mini__{project['name']}-1", "repo": f"repos/{project['name']}.bundle",
            "base_commit": commit, "problem_statement": project["problem"],
            "FAIL_TO_PASS": project["fail_to_pass"], "PASS_TO_PASS": project["pass_to_pass"],
            "patch": patch, "edits": len(project["bugs"])}


def generate(out_dir: Path) -> list[dict[str, Any]]:
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = [build_project(p, out_dir) for p in PROJECTS]
    with RecordWriter(out_dir / "instances.jsonl") as writer:
        for row in rows:
            writer.write(row)
    return rows
