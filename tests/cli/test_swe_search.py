import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INSTANCES = ROOT / "assets" / "swe_search" / "instances.jsonl"


def test_help_has_examples(reason):
    for cmd in ("run", "show", "make-bench"):
        out = reason("swe-search", cmd, "--help")
        assert out.returncode == 0 and "Example:" in out.stdout


def test_run_offline_then_show_and_resume(reason, tmp_path):
    out = tmp_path / "preds.jsonl"
    res = reason("swe-search", "run", "--instances", str(INSTANCES), "--instance", "mini__filters-1", "-n", "6",
                 "--out", str(out), "--seed", "0")
    assert res.returncode == 0, res.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["type"] for r in records] == ["swe.prediction", "swe.tree"]
    pred, tree = records
    assert pred["instance_id"] == "mini__filters-1" and pred["resolved"] is True
    assert pred["model_patch"].startswith("diff --git a/data/filters.py")
    assert "resolved 1/1" in res.stderr
    shown = reason("swe-search", "show", str(out), "--details")
    assert shown.returncode == 0 and "<= chosen" in shown.stderr and "finish" in shown.stderr
    again = reason("swe-search", "run", "--instances", str(INSTANCES), "--instance", "mini__filters-1",
                   "--out", str(out), "--resume")
    assert again.returncode == 0 and len(out.read_text().splitlines()) == 2


def test_bad_inputs_exit_2_with_one_line(reason, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"instance_id": "x", "repo": str(tmp_path), "base_commit": "HEAD",
                               "problem_statement": "p", "FAIL_TO_PASS": ["t"], "PASS_TO_PASS": []}) + "\n")
    res = reason("swe-search", "run", "--instances", str(bad))
    assert res.returncode == 2 and "is not a git repository" in res.stderr and "Traceback" not in res.stderr
    bad.write_text('{"instance_id": "x"}\n')
    res = reason("swe-search", "run", "--instances", str(bad))
    assert res.returncode == 2 and "bad.jsonl:1: missing field 'repo'" in res.stderr
    res = reason("swe-search", "show", str(bad))
    assert res.returncode == 2 and "no swe.tree record" in res.stderr


def test_make_bench_reproduces_shipped_assets(reason, tmp_path):
    res = reason("swe-search", "make-bench", "--out-dir", str(tmp_path / "b"))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "b" / "instances.jsonl").read_text() == INSTANCES.read_text()
    rows = [json.loads(line) for line in INSTANCES.read_text().splitlines()]
    assert len(rows) >= 12 and sum(r["edits"] > 1 for r in rows) >= 3
    for r in rows:
        assert (tmp_path / "b" / r["repo"]).read_bytes() == (INSTANCES.parent / r["repo"]).read_bytes()
    shutil.rmtree(tmp_path / "b")


def test_failed_run_keeps_existing_output(reason, tmp_path):
    inst = json.loads(INSTANCES.read_text().splitlines()[0])
    inst["repo"] = str(INSTANCES.parent / inst["repo"])
    inst["base_commit"] = "deadbeef" * 5
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(inst) + "\n")
    out, trees = tmp_path / "preds.jsonl", tmp_path / "trees.jsonl"
    for path in (out, trees):
        path.write_text('{"type": "swe.prediction", "schema": 1}\n')
    res = reason("swe-search", "run", "--instances", str(bad), "-n", "2", "--out", str(out), "--trees", str(trees))
    assert res.returncode == 2 and "'base_commit'" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert out.read_text() == trees.read_text() == '{"type": "swe.prediction", "schema": 1}\n'


def test_trees_to_the_same_file_as_out(reason, tmp_path):
    out = tmp_path / "all.jsonl"
    res = reason("swe-search", "run", "--instances", str(INSTANCES), "--instance", "mini__filters-1", "-n", "6",
                 "--out", str(out), "--trees", str(out), "--seed", "0")
    assert res.returncode == 0, res.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["type"] for r in records] == ["swe.prediction", "swe.tree"]
