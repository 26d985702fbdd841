"""`reason aha detect` on a stream: verdicts leave as each batch is judged, a bad image is one error record."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "assets" / "aha" / "examples" / "samples.jsonl"


def _lines(n: int, tmp_path: Path, corrupt: int | None = None) -> list[str]:
    out = []
    for i, line in enumerate(EXAMPLES.read_text().splitlines()[:n]):
        rec = json.loads(line)
        rec["dir"] = str(EXAMPLES.parent)
        if i == corrupt:
            bad = tmp_path / "corrupt.png"
            bad.write_bytes(b"\x89PNG\r\n\x1a\n not really a png")
            rec["image"], rec["dir"] = str(bad), None
        out.append(json.dumps(rec) + "\n")
    return out


def _detect(*args: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.Popen([sys.executable, "-m", "cli", "aha", "detect", *args, "--device", "cpu",
                             "--max-new-tokens", "3"], cwd=ROOT, env=env, text=True, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def test_first_verdicts_arrive_while_the_input_is_still_open(tmp_path):
    proc = _detect("-", "--batch-size", "2")
    lines = _lines(3, tmp_path)
    proc.stdin.write(lines[0] + lines[1])
    proc.stdin.flush()  # the pipe stays open: a reader that waits for its end would print nothing
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    try:
        assert sel.select(timeout=120), "no verdict before the input ended"
        first = json.loads(proc.stdout.readline())
        assert first["type"] == "aha.verdict" and first["sample_id"] == json.loads(lines[0])["sample_id"]
        assert proc.poll() is None  # still running, still reading
        proc.stdin.write(lines[2])
        proc.stdin.close()
        rest = proc.stdout.read().splitlines()
        assert proc.wait(timeout=120) == 0
    finally:
        proc.kill()
    assert [json.loads(x)["sample_id"] for x in rest] == [json.loads(x)["sample_id"] for x in lines[1:]]


def test_a_corrupt_or_missing_image_is_its_own_error_record_and_its_batch_is_kept(tmp_path):
    lines = _lines(5, tmp_path, corrupt=1)
    gone = json.loads(lines[3])
    gone["image"] = "no/such/grid.png"
    lines[3] = json.dumps(gone) + "\n"
    proc = _detect("-", "--batch-size", "5")
    out, err = proc.communicate("".join(lines), timeout=240)
    records = [json.loads(x) for x in out.splitlines()]
    assert [r["sample_id"] for r in records] == [json.loads(x)["sample_id"] for x in lines]
    assert "corrupt or unreadable image" in records[1]["error"] and records[1]["label"] is None
    assert "no such image file" in records[3]["error"]
    assert all("error" not in r and r["label"] in ("Yes", "No") for i, r in enumerate(records) if i not in (1, 3))
    assert proc.returncode == 2 and "2 sample(s) could not be judged" in err and "Traceback" not in err
    proc = _detect("-", "--batch-size", "5", "--skip-bad")
    out, err = proc.communicate("".join(lines), timeout=240)
    assert proc.returncode == 0 and len(out.splitlines()) == 5 and "could not be judged" in err


@pytest.mark.parametrize("case", ["batch0", "question"])
def test_bad_options_and_fields_are_input_errors(tmp_path, case):
    lines = _lines(2, tmp_path)
    if case == "batch0":
        proc = _detect("-", "--batch-size", "0")
        want = "--batch-size"
    else:
        rec = json.loads(lines[1])
        rec["question"] = 7
        lines[1] = json.dumps(rec) + "\n"
        proc = _detect("-")
        want = "field 'question': expected a string, got int"
    out, err = proc.communicate("".join(lines), timeout=240)
    assert proc.returncode == 2 and want in err and "Traceback" not in err, err
