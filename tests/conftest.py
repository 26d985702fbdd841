"""Shared fixtures: run the real `reason` executable, build tiny models from configs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def run_reason(*args: str, input: str | None = None, cwd: Path | None = None, env: dict | None = None,
               timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `reason ARGS...` as a user would, in a subprocess; returns the completed process."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **(env or {})}
    return subprocess.run([sys.executable, "-m", "cli", *args], input=input, capture_output=True, text=True,
                          cwd=cwd or ROOT, env=full_env, timeout=timeout)


@pytest.fixture
def reason():
    return run_reason


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory) -> Path:
    """A 4-layer Llama built from a config with a small word-level tokenizer, saved locally."""
    from tests.support.tiny_models import build_tiny_llama

    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(autouse=True)
def _fresh_provenance():
    """A stand-in backend used by one in-process test must not label the records of the next."""
    from toolkit.core import provenance

    provenance.reset()
    yield
    provenance.reset()
