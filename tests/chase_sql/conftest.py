from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "assets" / "chase_sql" / "demo"


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory) -> Path:
    """A private copy of the shipped demo set (indexes get written next to its databases)."""
    out = tmp_path_factory.mktemp("demo") / "demo"
    shutil.copytree(DEMO, out, ignore=shutil.ignore_patterns("*.chase-index"))
    return out


@pytest.fixture(scope="session")
def library_db(demo_dir) -> Path:
    return demo_dir / "dev_databases" / "library" / "library.sqlite"
