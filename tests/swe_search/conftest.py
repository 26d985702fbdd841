"""Small git repositories built in a temp dir for the swe-search tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_GLOBAL": os.devnull}

FILES = {
    "calc/__init__.py": "",
    "calc/ops.py": ("def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return x * 2\n\n\n"
                    "def limit(x):\n    return x\n\n\ndef limit2(x):\n    return x\n"),
    "tests/test_ops.py": ("from calc.ops import add, double\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
                          "def test_double():\n    assert double(4) == 8\n"),
}


def make_repo(root: Path, files: dict[str, str] = FILES) -> str:
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, env=ENV, check=True)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=root, env=ENV, check=True)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=root, env=ENV, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, env=ENV, check=True, capture_output=True,
                          text=True).stdout.strip()


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def user_repo(tmp_path):
    root = tmp_path / "user-checkout"
    commit = make_repo(root)
    return root, commit


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """Point tempfile at an empty directory so leftovers can be counted."""
    import tempfile

    d = tmp_path / "tmpdir"
    d.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    return d
