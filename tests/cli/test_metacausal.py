import json
import sys

import pytest

from tests.support.openai_stub import StubServer, chat_payload


def records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def run_inproc(capsys, monkeypatch, *args: str) -> tuple[int, str, str]:
    """The real CLI entry point in this process (fast for the many error cases)."""
    from cli.main import main

    monkeypatch.setattr(sys, "argv", ["reason", *args])
    with pytest.raises(SystemExit) as exc:
        main()
        raise SystemExit(0)
    out = capsys.readouterr()
    return exc.value.code or 0, out.out, out.err


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    """simulate | infer | graph through the real executable, once for the module."""
    from tests.conftest import run_reason

    d = tmp_path_factory.mktemp("mc")
    sim = run_reason("metacausal", "simulate", "linear", "--k", "2", "--seed", "100", "--csv", str(d / "d.csv"))
    assert sim.returncode == 0, sim.stderr
    fit = run_reason("metacausal", "infer", "--data", "-", "--kmax", "3", "--select", "bic", "--restarts", "6",
                     "--seed", "1", input=sim.stdout)
    assert fit.returncode == 0, fit.stderr
    graph = run_reason("metacausal", "graph", "--fit", "-", "--png", str(d / "g.png"), "--graphml",
                       str(d / "g.graphml"), input=fit.stdout)
    assert graph.returncode == 0, graph.stderr
    return d, records(sim.stdout), records(fit.stdout), records(graph.stdout)


def test_simulate_infer_graph_pipeline(pipeline):
    d, samples, fit, graph = pipeline
    assert len(samples) == 1000 and samples[0]["type"] == "metacausal.sample"
    assert samples[0]["state"] == "m0" and "mechanism" in samples[0]
    head = fit[0]
    assert head["type"] == "metacausal.fit" and head["k_hat"] == 2 and head["select"] == "bic"
    assert [s["k"] for s in head["scores"]] == [1, 2, 3]
    assert min(head["scores"], key=lambda s: s["bic"])["k"] == 2
    assigns = fit[1:]
    assert len(assigns) == 1000 and all(a["type"] == "metacausal.assign" for a in assigns)
    # the states found agree with the hidden mechanisms on nearly every sample (up to relabelling)
    truth = [s["mechanism"] for s in samples]
    found = [a["state"] for a in assigns]
    same = sum(t == f for t, f in zip(truth, found, strict=True)) / 1000
    assert max(same, 1 - same) > 0.8
    g = graph[0]
    assert g["type"] == "metacausal.graph" and len(g["states"]) == 2
    for row in g["probabilities"]:
        assert sum(row) == pytest.approx(1.0)
    assert (d / "g.png").stat().st_size > 1000 and (d / "g.graphml").read_text().startswith("<?xml")
    assert (d / "d.csv").read_text().splitlines()[0] == "x,y,t,environment"


def test_infer_reads_csv_and_is_deterministic(pipeline, capsys, monkeypatch):
    d, _, fit, _ = pipeline
    args = ("metacausal", "infer", "--data", str(d / "d.csv"), "--kmax", "3", "--select", "bic", "--restarts", "6",
            "--seed", "1")
    code, out, _ = run_inproc(capsys, monkeypatch, *args)
    assert code == 0
    again = records(out)
    assert again[0]["mechanisms"] == fit[0]["mechanisms"] and again[0]["scores"] == fit[0]["scores"]


def test_protocol_resume_runs_only_missing_problems(tmp_path, capsys, monkeypatch):
    out = tmp_path / "p.jsonl"
    base = ("metacausal", "protocol", "--k", "1", "--kmax", "1", "--restarts", "2", "--select", "ad,bic",
            "--first-seed", "10000", "-o", str(out))
    assert run_inproc(capsys, monkeypatch, *base, "--problems", "2")[0] == 0
    first = records(out.read_text())
    assert [r["type"] for r in first] == ["metacausal.protocol"] + ["metacausal.problem"] * 2 + \
        ["metacausal.confusion"] * 2
    assert run_inproc(capsys, monkeypatch, *base, "--problems", "3", "--resume")[0] == 0
    second = records(out.read_text())
    problems = [r for r in second if r["type"] == "metacausal.problem"]
    assert [p["problem"] for p in problems] == [0, 1, 2]
    assert problems[:2] == first[1:3]  # kept, not recomputed (their timings would differ)
    conf = [r for r in second if r["type"] == "metacausal.confusion"]
    assert len(conf) == 2 and conf[0]["problems"] == {"1": 3}
    code, _, err = run_inproc(capsys, monkeypatch, *base[:-2], "--restarts", "3", "-o", str(out), "--problems", "3",
                              "--resume")
    assert code == 2 and "settings" in err and len(err.strip().splitlines()) == 1
    code, md, _ = run_inproc(capsys, monkeypatch, "metacausal", "report", str(out), "--select", "ad", "--markdown",
                             "--png", str(tmp_path / "c.png"))
    assert code == 0 and "| true K |" in md and (tmp_path / "c.png").exists()


def test_regions_record(tmp_path, capsys, monkeypatch):
    code, out, _ = run_inproc(capsys, monkeypatch, "metacausal", "regions", "--runs", "3", "--steps", "800",
                              "--seed", "2", "--png", str(tmp_path / "r.png"))
    r = records(out)[0]
    assert code == 0 and r["grid"]["reinforcing"] == 45 and r["grid"]["cells"] == 66
    assert [p["stable"] for p in r["fixed_points"]] == [True, False, True]
    assert r["learned"]["agreement"] >= 0.95 and r["learned"]["tipping_error"] <= 0.03
    assert (tmp_path / "r.png").exists()


def _graph_file(pipeline, tmp_path):
    _, _, _, graph = pipeline
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(graph[0]) + "\n")
    return path


def test_describe_against_local_server(pipeline, tmp_path, capsys, monkeypatch):
    stub = StubServer(lambda body: (200, chat_payload(["Two regimes: y drives x in one, x drives y in the other."])))
    stub.thread.start()
    try:
        code, out, _ = run_inproc(capsys, monkeypatch, "metacausal", "describe", "--graph",
                                  str(_graph_file(pipeline, tmp_path)), "--llm", f"openai:stub@{stub.url}",
                                  "--record", str(tmp_path / "rec.jsonl"))
    finally:
        stub.server.shutdown()
    rec = records(out)[0]
    assert code == 0 and rec["type"] == "metacausal.description" and rec["text"].startswith("Two regimes")
    assert rec["backend"] != "stand-in"
    prompt = stub.requests[0]["messages"][0]["content"]
    assert "state 0" in prompt and "state 1" in prompt
    code, out, _ = run_inproc(capsys, monkeypatch, "metacausal", "describe", "--graph",
                              str(_graph_file(pipeline, tmp_path)), "--llm", f"replay:{tmp_path / 'rec.jsonl'}")
    rec = records(out)[0]
    assert code == 0 and rec["backend"] == "stand-in" and rec["note"] == "pipeline demo, not a model result"


@pytest.mark.parametrize(("body", "args", "needle"), [
    ('{"x": 1, "z": 2}\n', (), "d.jsonl:1: missing field 'y'"),
    ('{"x": 1, "y": "a"}\n', (), "d.jsonl:1: field 'y': not a number"),
    ('{"x": 1, "y": 2}\n' * 5, (), "need at least 10 x --kmax = 40"),
    ("".join(f'{{"x": 1, "y": {i}}}\n' for i in range(50)), (), "field 'x' is constant"),
    ("".join(f'{{"x": {i}, "y": {i % 7}}}\n' for i in range(50)) + '{"x": NaN, "y": 1}\n', (), "d.jsonl:51"),
    ('{"x": 1, "y": 2}\n' * 50, ("--kmax", "9"), "--kmax 9: must be within 1..8"),
    ('{"x": 1, "y": 2}\n' * 50, ("--kmax", "5"), "--restarts official"),
    ('{"x": 1, "y": 2}\n' * 50, ("--select", "aic"), "--select 'aic': unknown"),
])
def test_bad_input_is_one_line(tmp_path, capsys, monkeypatch, body, args, needle):
    data = tmp_path / "d.jsonl"
    data.write_text(body)
    out = tmp_path / "fit.jsonl"
    code, _, err = run_inproc(capsys, monkeypatch, "metacausal", "infer", "--data", str(data), "-o", str(out), *args)
    assert code == 2, err
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()


def test_skip_bad_drops_and_counts(tmp_path, capsys, monkeypatch):
    rows = "".join(f'{{"x": {i % 13}, "y": {2 * (i % 13) + (i % 3)}}}\n' for i in range(60))
    data = tmp_path / "d.jsonl"
    data.write_text(rows + '{"x": Infinity, "y": 1}\n{"x": 1, "y": NaN}\n')
    code, out, err = run_inproc(capsys, monkeypatch, "metacausal", "infer", "--data", str(data), "--kmax", "1",
                                "--restarts", "2", "--skip-bad")
    assert code == 0 and "skipped 2 bad line(s)" in err
    assert records(out)[0]["n"] == 60 and records(out)[0]["skipped"] == 2


def test_graph_errors(tmp_path, capsys, monkeypatch):
    fit_only = tmp_path / "f.jsonl"
    fit_only.write_text(json.dumps({"type": "metacausal.fit", "schema": 1, "k_hat": 1, "select": "bic",
                                    "mechanisms": [{"id": 0, "slope": 1.0, "intercept": 0.0, "scale": 1.0,
                                                    "direction": "x->y", "weight": 1.0}]}) + "\n")
    code, _, err = run_inproc(capsys, monkeypatch, "metacausal", "graph", "--fit", str(fit_only))
    assert code == 2 and "no metacausal.assign records" in err
    code, _, err = run_inproc(capsys, monkeypatch, "metacausal", "graph", "--fit", str(fit_only), "--types", "colour")
    assert code == 2 and "--types 'colour': unknown" in err
    none = tmp_path / "none.jsonl"
    none.write_text(json.dumps({"type": "metacausal.fit", "schema": 1, "k_hat": 0, "select": "ad", "mechanisms": []})
                    + "\n" + json.dumps({"type": "metacausal.assign", "schema": 1, "index": 0, "t": 0.0,
                                          "state": None, "responsibilities": []}) + "\n")
    code, _, err = run_inproc(capsys, monkeypatch, "metacausal", "graph", "--fit", str(none))
    assert code == 2 and "K-hat = 0" in err
    code, _, err = run_inproc(capsys, monkeypatch, "metacausal", "protocol", "--k", "0")
    assert code == 2 and "--k 0" in err


def test_pairs_joined_into_states_over_time(tmp_path, capsys, monkeypatch):
    """Two variable pairs switching at different times: (a, b) flips its slope's sign at t = 300, (c, d) its
    direction at t = 600; the joint states are the three combinations seen, visited in order."""
    import numpy as np

    rng = np.random.default_rng(0)
    rows = []
    for t in range(900):
        a, c = rng.uniform(-5, 5, 2)
        b = (2.0 if t < 300 else -2.0) * a + 1.0 + rng.laplace(0, 0.1)
        d = 1.5 * c - 1.0 + rng.laplace(0, 0.1)
        if t >= 600:  # now d causes c
            d, c = c, -0.5 * c + 2.0 + rng.laplace(0, 0.1)
        rows.append(json.dumps({"a": a, "b": b, "c": c, "d": d, "t": t, "environment": t / 900}))
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(rows) + "\n")
    fit = tmp_path / "fit.jsonl"
    code, _, err = run_inproc(capsys, monkeypatch, "metacausal", "infer", "--data", str(data), "--pairs", "a:b,c:d",
                              "--kmax", "2", "--select", "bic", "--restarts", "4", "--init", "ransac", "--seed", "1",
                              "-o", str(fit))
    assert code == 0, err
    recs = records(fit.read_text())
    fits = [r for r in recs if r["type"] == "metacausal.fit"]
    assert [(f["pair"], f["k_hat"], f["init"]) for f in fits] == [("a:b", 2, "ransac"), ("c:d", 2, "ransac")]
    assert sum(r["type"] == "metacausal.assign" and r["pair"] == "c:d" for r in recs) == 900
    code, out, err = run_inproc(capsys, monkeypatch, "metacausal", "graph", "--fit", str(fit), "--smooth", "9",
                                "--graphml", str(tmp_path / "g.graphml"))
    assert code == 0, err
    g = records(out)[0]
    assert g["pairs"] == ["a:b", "c:d"] and g["k_hat"] == {"a:b": 2, "c:d": 2}
    signs = [(s["type"]["a:b sign"], s["type"]["c:d direction"]) for s in g["states"]]
    assert signs == [("+", "x->y"), ("-", "x->y"), ("-", "y->x")]
    assert [s["samples"] for s in g["states"]] == [300, 300, 300]
    switches = [[n if i != j else 0 for j, n in enumerate(row)] for i, row in enumerate(g["transitions"])]
    assert switches == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    assert (tmp_path / "g.graphml").read_text().startswith("<?xml")
    code, _, err = run_inproc(capsys, monkeypatch, "metacausal", "infer", "--data", str(data), "--pairs", "a:b,a")
    assert code == 2 and "--pairs" in err
    code, _, err = run_inproc(capsys, monkeypatch, "metacausal", "infer", "--data", str(data), "--init", "lines")
    assert code == 2 and "--init 'lines'" in err
