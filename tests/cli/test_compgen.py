import json


def test_kernel_and_theory_and_report(reason, tmp_path):
    out = reason("compgen", "kernel", "--task", "context-dependence", "--variant", "1", "--rep", "relu",
                 "--ridge", "1e-6")
    assert out.returncode == 0, out.stderr
    recs = [json.loads(line) for line in out.stdout.splitlines()]
    summary = recs[-1]
    assert summary["type"] == "compgen.kernel" and summary["test_accuracy"] == 1.0
    assert summary["max_theory_gap"] < 1e-8
    assert sum(r["type"] == "compgen.prediction" for r in recs) == 18
    path = tmp_path / "k.jsonl"
    path.write_text(out.stdout)
    rep = reason("compgen", "report", str(path), "--png", str(tmp_path / "fig.png"))
    assert rep.returncode == 0, rep.stderr
    assert (tmp_path / "fig.png").stat().st_size > 1000

    th = reason("compgen", "theory", "--task", "transitive-equivalence", "--rep", "relu")
    rec = json.loads(th.stdout)
    assert rec["learnable"] is False and abs(rec["test_separation"]) < 1e-9


def test_bad_input_exit_codes(reason, tmp_path):
    bad = reason("compgen", "kernel", "--task", "addition", "--split", "dispersed", "--ridge", "0")
    assert bad.returncode == 2 and "singular" in bad.stderr and "Traceback" not in bad.stderr
    unknown = reason("compgen", "theory", "--task", "nope")
    assert unknown.returncode == 2 and "known: addition" in unknown.stderr
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"type": "compgen.kernel"\n')
    assert reason("compgen", "report", str(junk)).returncode == 2


def test_report_names_bad_fields_and_png_problems(reason, tmp_path):
    pred = {"type": "compgen.prediction", "schema": 1, "task": "addition", "source": "kernel", "theory": 0.5,
            "prediction": 0.4}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(pred) + "\n" + json.dumps({**pred, "theory": "high"}) + "\n")
    out = reason("compgen", "report", str(path), "--png", str(tmp_path / "a.png"))
    assert out.returncode == 2
    assert out.stderr.strip() == f"error: {path}: record 2 (compgen.prediction): field 'theory': expected a number"
    skipped = reason("compgen", "report", str(path), "--png", str(tmp_path / "a.png"), "--skip-bad")
    assert skipped.returncode == 0 and "skipped 1 bad line" in skipped.stderr
    assert (tmp_path / "a.png").stat().st_size > 1000
    path.write_text(json.dumps({"type": "compgen.kernel", "schema": 1, "rep": "relu"}) + "\n")
    out = reason("compgen", "report", str(path))
    assert out.returncode == 2 and "record 1 (compgen.kernel): field 'task'" in out.stderr
    path.write_text(json.dumps(pred) + "\n")
    (tmp_path / "file").write_text("")
    for png, needle in ((tmp_path / "fig.txt", "Format 'txt' is not supported"),
                        (tmp_path / "file" / "fig.png", "cannot write")):
        out = reason("compgen", "report", str(path), "--png", str(png))
        assert out.returncode == 2 and needle in out.stderr and "Traceback" not in out.stderr, out.stderr
