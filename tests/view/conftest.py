"""Record files of every family `reason view` knows, made by the systems' own commands or taken from assets/.

data/swe.jsonl: two trees and three predictions from
  reason swe-search run --instances assets/swe_search/instances.jsonl -n 8 --trees trees.jsonl --out preds.jsonl
data/sql-eval.jsonl: the sql.eval lines of questions 17-19 from
  reason chase-sql eval assets/chase_sql/predictions-dev.jsonl --data assets/chase_sql/demo
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_reason

DATA = Path(__file__).parent / "data"
ASSETS = ROOT / "assets"
# The sample whose verdict the fixture makes wrong; the gallery's "wrong" filter must keep its episode only.
WRONG_SAMPLE = "stack-s0-grasp/0"


def write_lines(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def judged(samples: list[dict]) -> list[dict]:
    """aha.verdict records in the shape `reason aha detect` writes: the gold answer, except one flipped."""
    out = []
    for s in samples:
        raw = s["answer"]
        if s["sample_id"] == WRONG_SAMPLE:
            raw = "Yes" if s["label"] == "No" else "No, the gripper missed the cube."
        label, _, expl = raw.partition(",")
        out.append({"type": "aha.verdict", "schema": 1, "sample_id": s["sample_id"], "episode_id": s["episode_id"],
                    "task": s["task"], "mode": s["mode"], "subtask_index": s["subtask_index"], "subtask": s["subtask"],
                    "success": label == "Yes", "label": label, "explanation": expl.strip(), "raw": raw,
                    "reference": s["answer"], "model": "fixture"})
    return out


@pytest.fixture(scope="session")
def record_files(tmp_path_factory) -> dict[str, Path]:
    """Name -> record file, one or more per family, plus an unknown type and a shipped 'other' type."""
    tmp = tmp_path_factory.mktemp("view-records")
    fg = tmp / "fg"
    res = run_reason("failgen", "--task", "stack", "--modes", "grasp,slip", "--image-size", "24", "--gif",
                     "--out", str(fg), "--seed", "0")
    assert res.returncode == 0, res.stderr
    samples = [json.loads(line) for line in (fg / "samples.jsonl").read_text().splitlines()]
    game = run_reason("gama", "play", "guess", "-P", "random*2,best-response", "-n", "4", "-r", "5", "--seed", "0")
    assert game.returncode == 0, game.stderr
    sql = [line for line in (ASSETS / "chase_sql" / "predictions-dev.jsonl").read_text().splitlines()
           if json.loads(line)["qid"] in {"17", "18", "19"}]
    files = {
        "episodes": fg / "episodes.jsonl",
        "samples": fg / "samples.jsonl",
        "verdicts": write_lines(tmp / "verdicts.jsonl", judged(samples)),
        "swe": DATA / "swe.jsonl",
        "gama": tmp / "gama.jsonl",
        "gama_summary": ASSETS / "gama" / "expected.jsonl",
        "sql": tmp / "sql.jsonl",
        "sql_eval": DATA / "sql-eval.jsonl",
        "kv": ASSETS / "kvcompress" / "eval-1k.jsonl",
        "steer": ASSETS / "steer" / "sweeps" / "mathematical-mean.jsonl",
        "other": write_lines(tmp / "other.jsonl", [
            {"type": "future.thing", "schema": 2, "name": "alpha", "nested": {"deep": [1, 2, {"leaf": "x" * 300}]}},
            {"type": "future.thing", "schema": 2, "name": "beta", "nested": None},
            {"type": "microtheory.relevance", "schema": 1, "question_id": "q03", "fraction": 0.5, "relevant": True},
        ]),
    }
    files["gama"].write_text(game.stdout, encoding="utf-8")
    files["sql"].write_text("\n".join(sql) + "\n", encoding="utf-8")
    return files


@pytest.fixture(scope="session")
def site(record_files, tmp_path_factory):
    """The site built from every fixture file (the browser tests and the page checks share it)."""
    from toolkit.view import build_site

    out = tmp_path_factory.mktemp("view-site") / "site"
    summary = build_site([str(p) for p in record_files.values()], out)
    return out, summary
