import json
import shutil
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INSTANCES = ROOT / "assets" / "swe_search" / "instances.jsonl"
ROWS = [json.loads(line) for line in INSTANCES.read_text().splitlines()]


def _row(source, **changes):
    row = dict(next(r for r in ROWS if r["instance_id"] == source))
    row["repo"] = str(INSTANCES.parent / row["repo"])
    row.update(changes)
    return row


def test_help_has_examples(reason):
    for cmd in ("run", "show", "make-bench", "compare"):
        out = reason("swe-search", cmd, "--help")
        assert out.returncode == 0 and "Example:" in out.stdout


def test_run_offline_writes_harness_predictions_then_show_and_resume(reason, tmp_path):
    out, trees = tmp_path / "preds.jsonl", tmp_path / "trees.jsonl"
    res = reason("swe-search", "run", "--instances", str(INSTANCES), "--instance", "bench__simple-0", "-n", "6",
                 "--out", str(out), "--trees", str(trees), "--seed", "0")
    assert res.returncode == 0, res.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["type"] for r in rows] == ["swe.prediction"]  # exactly one row per instance, nothing else
    preds = {r["instance_id"]: r["model_patch"] for r in rows}  # how the harness reads it
    assert preds["bench__simple-0"].startswith("diff --git a/pkg/alpha.py") and rows[0]["resolved"] is True
    assert "resolved 1/1" in res.stderr
    shown = reason("swe-search", "show", str(trees), "--details")
    assert shown.returncode == 0 and "<= chosen" in shown.stderr and "finish" in shown.stderr
    again = reason("swe-search", "run", "--instances", str(INSTANCES), "--instance", "bench__simple-0",
                   "--out", str(out), "--trees", str(trees), "--resume")
    assert again.returncode == 0 and len(out.read_text().splitlines()) == 1
    same = reason("swe-search", "run", "--instances", str(INSTANCES), "--out", str(out), "--trees", str(out))
    assert same.returncode == 2 and "--trees" in same.stderr and len(out.read_text().splitlines()) == 1


def test_bad_instances_name_the_instance_and_skip_bad_goes_on(reason, tmp_path):
    good = _row("bench__simple-0")
    added = good["test_patch"].replace("new file mode 100644\n", "")
    gone = added.replace("--- /dev/null", "--- a/tests/test_gone.py")
    clash = added.replace("--- /dev/null\n+++ b/tests/test_issue.py", "--- a/tests/test_visible.py\n"
                                                                    "+++ b/tests/test_visible.py")
    bad = [_row("bench__simple-0", instance_id="gone-1", test_patch=gone),
           _row("bench__simple-0", instance_id="clash-1", test_patch=clash),
           _row("bench__simple-0", instance_id="nobase-1", base_commit="deadbeef" * 5),
           _row("bench__simple-0", instance_id="quiet-1", test_cmd="python -c \"print('no tests here')\"")]
    path = tmp_path / "inst.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [good] + bad) + "\n")
    out = tmp_path / "preds.jsonl"
    res = reason("swe-search", "run", "--instances", str(path), "-n", "4", "--out", str(out))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip().splitlines()[-1] == (f"error: {path}:2: instance gone-1: test_patch changes "
                                                   "tests/test_gone.py, which is not in the repository at base_commit")
    assert [json.loads(line)["instance_id"] for line in out.read_text().splitlines()] == ["bench__simple-0"]
    res = reason("swe-search", "run", "--instances", str(path), "-n", "4", "--out", str(out), "--skip-bad",
                 "--instance", "clash-1", "--instance", "nobase-1", "--instance", "quiet-1")
    assert res.returncode == 0, res.stderr
    assert f"{path}:3: instance clash-1: test_patch does not apply to base_commit" in res.stderr
    assert f"{path}:4: instance nobase-1: field 'base_commit'" in res.stderr
    assert (f"{path}:5: instance quiet-1: the test command gave no outcome for any test at base_commit "
            "(output: no tests here)") in res.stderr
    assert out.read_text() == ""


def test_bad_inputs_exit_2_with_one_line(reason, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"instance_id": "x", "repo": str(tmp_path), "base_commit": "HEAD",
                               "problem_statement": "p", "FAIL_TO_PASS": '["t"]', "PASS_TO_PASS": "[]"}) + "\n")
    res = reason("swe-search", "run", "--instances", str(bad))
    assert res.returncode == 2 and "is not a git repository" in res.stderr and "Traceback" not in res.stderr
    bad.write_text('{"instance_id": "x"}\n')
    res = reason("swe-search", "run", "--instances", str(bad))
    assert res.returncode == 2 and "bad.jsonl:1: missing field 'repo'" in res.stderr
    res = reason("swe-search", "show", str(bad))
    assert res.returncode == 2 and "no swe.tree record" in res.stderr
    res = reason("swe-search", "run", "--instances", str(INSTANCES), "--strategy", "beam")
    assert res.returncode == 2 and "--strategy beam" in res.stderr
    res = reason("swe-search", "compare", "--budgets", "ten")
    assert res.returncode == 2 and "--budgets ten" in res.stderr


def test_published_swe_bench_rows_and_repos_dir(reason, tmp_path):
    """FAIL_TO_PASS/PASS_TO_PASS as JSON strings, test_patch, version, environment_setup_commit, and a repo
    named owner/name found under --repos-dir."""
    row = _row("bench__simple-0", repo="acme/simple-0")
    assert isinstance(row["FAIL_TO_PASS"], str) and row["version"] and row["environment_setup_commit"]
    repos = tmp_path / "repos"
    repos.mkdir()
    shutil.copy(INSTANCES.parent / "repos" / "simple-0.bundle", repos / "acme__simple-0.bundle")
    path = tmp_path / "published.jsonl"
    path.write_text(json.dumps(row) + "\n")
    out = tmp_path / "preds.jsonl"
    res = reason("swe-search", "run", "--instances", str(path), "--repos-dir", str(repos), "-n", "6",
                 "--strategy", "linear", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert json.loads(out.read_text())["resolved"] is True


def test_make_bench_reproduces_shipped_assets(reason, tmp_path):
    res = reason("swe-search", "make-bench", "--out-dir", str(tmp_path / "b"))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "b" / "instances.jsonl").read_text() == INSTANCES.read_text()
    for r in ROWS:
        assert (tmp_path / "b" / r["repo"]).read_bytes() == (INSTANCES.parent / r["repo"]).read_bytes()
    shutil.rmtree(tmp_path / "b")


def test_benchmark_shape():
    families = Counter(r["family"] for r in ROWS)
    assert len(ROWS) >= 50
    traps = [r for r in ROWS if r["family"].startswith("trap")]
    assert 3 * len(traps) >= len(ROWS) and all(r["trap_patch"] for r in traps)
    assert families["valley"] >= 5 and all(r["edits"] == 2 for r in ROWS if r["family"] == "valley")
    assert {r["edits"] for r in ROWS if r["family"].startswith("multi")} == {3, 4, 5}
    for r in ROWS:
        hidden = json.loads(r["FAIL_TO_PASS"])
        assert hidden and all(t.startswith("tests/test_issue.py::") for t in hidden)  # only via test_patch
        assert "+++ b/tests/test_issue.py" in r["test_patch"]
        assert ("```" not in r["problem_statement"]) == (r["family"] == "prose")  # prose: an inline example only
        assert not any(t.startswith("tests/test_issue.py") for t in json.loads(r["PASS_TO_PASS"]))
    assert families["prose"] >= 5 and families["second-cmp"] >= 5
    for r in ROWS:
        if r["family"] == "second-cmp":  # the wrong token sits on a line with two comparisons
            minus = [line for line in r["patch"].splitlines() if line.startswith("-") and not line.startswith("---")]
            assert len(minus) == 1 and sum(minus[0].count(op) for op in ("<", ">")) == 2


def test_compare_runs_every_strategy_and_summarizes(reason, tmp_path):
    out = tmp_path / "cmp.jsonl"
    # mcts: one run read at each budget; restarts: one run per budget (its shares depend on the budget)
    res = reason("swe-search", "compare", "--instance", "bench__simple-1", "--budgets", "4,8", "--seeds", "0",
                 "--strategies", "mcts,restarts", "--target-budget", "8", "--out", str(out))
    assert res.returncode == 0, res.stderr
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    runs, summary = recs[:-1], recs[-1]
    assert {(r["strategy"], r["budget"]) for r in runs} == {(s, b) for s in ("mcts", "restarts") for b in (4, 8)}
    assert all(r["expansions"] <= r["budget"] for r in runs)
    assert summary["type"] == "swe.compare_summary" and summary["mcnemar"]["baseline"] == "restarts"
    assert summary["curves"]["mcts"]["8"] == sum(r["resolved"] for r in runs if r["strategy"] == "mcts"
                                                 and r["budget"] == 8)
    assert "McNemar at 8 nodes, mcts vs restarts" in res.stderr


def test_mcnemar_exact_p():
    from toolkit.swe_search.compare import mcnemar

    assert mcnemar([(True, False)] * 6 + [(True, True)] * 10) == (6, 0, 0.03125)  # 2 * 0.5**6
    assert mcnemar([(True, False), (False, True)] * 3) == (3, 3, 1.0)
    assert mcnemar([(False, False)]) == (0, 0, 1.0)


def test_an_agent_with_nothing_to_go_on_says_so_per_instance(reason, tmp_path):
    """Prose statements without an example, every visible test passing at base_commit: each instance says why
    (record `note` and stderr); a run where no instance had anything to go on exits 1 after writing."""
    named = _row("bench__prose-0", instance_id="named-1",
                 problem_statement="`alpha_fn` in `pkg/alpha.py` mishandles values below the bound.\n")
    vague = _row("bench__prose-0", instance_id="vague-1", problem_statement="Results are sometimes wrong.\n")
    path = tmp_path / "inst.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (named, vague, _row("bench__simple-0"))))
    out = tmp_path / "preds.jsonl"
    res = reason("swe-search", "run", "--instances", str(path), "-n", "4", "--out", str(out),
                 "--instance", "named-1", "--instance", "vague-1")
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert res.stderr.strip().splitlines()[-1] == (
        f"error: {path}: none of the 2 instance(s) gave the agent a failing test or an example to start from, so "
        "no patch was checked (predictions written; see above)")
    rows = {r["instance_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["vague-1"]["note"].startswith("nothing attempted: the statement has no reproduction")
    assert rows["vague-1"]["model_patch"] == "" and "vague-1: nothing attempted" in res.stderr
    note = rows["named-1"]["note"]
    assert note.startswith("no failing test to guide the search") and "(pkg/alpha.py:alpha_fn)" in note
    assert rows["named-1"]["model_patch"].startswith("diff --git a/pkg/alpha.py")  # it searched there
    assert "named-1: no failing test to guide the search" in res.stderr
    res = reason("swe-search", "run", "--instances", str(path), "-n", "4", "--out", str(out),
                 "--instance", "vague-1", "--instance", "bench__simple-0")
    assert res.returncode == 0, res.stderr
    assert "resolved 1/2 (hidden FAIL_TO_PASS + PASS_TO_PASS); 1 of them with no failing test" in res.stderr
    rows = {r["instance_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["bench__simple-0"]["note"] == "" and rows["vague-1"]["note"]
