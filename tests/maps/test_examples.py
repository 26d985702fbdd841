"""assets/maps/examples/ is what its documented command writes, byte for byte (README, regenerate.sh)."""

from __future__ import annotations

import filecmp
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("ngspice") is None, reason="needs `make sysdeps`")
EXAMPLES = Path(__file__).resolve().parents[2] / "assets" / "maps" / "examples"


def test_examples_come_out_of_their_command(reason, tmp_path):
    out = tmp_path / "examples"
    r = reason("maps", "generate", "--tier", "small", "--n", "20", "--seed", "7", "--out-dir", str(out),
               "--workers", "2")
    assert r.returncode == 0, r.stderr
    shipped = sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*") if p.is_file())
    made = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert shipped == made
    differ = [str(p) for p in shipped if not filecmp.cmp(EXAMPLES / p, out / p, shallow=False)]
    assert differ == []
