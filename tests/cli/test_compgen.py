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
