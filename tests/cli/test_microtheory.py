"""End-to-end runs of `reason microtheory ...` on the shipped data and replay."""

import json
from pathlib import Path

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "microtheory"
REPLAY = f"replay:{ASSETS / 'replay.jsonl'}"
STANDIN = "py:toolkit.microtheory.standin:complete"


def _records(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_pipeline_replays_shipped_outputs(reason, tmp_path):
    store = tmp_path / "store.jsonl"
    out = reason("microtheory", "store", "-q", str(ASSETS / "qa.jsonl"), "--split", "train", "--llm", REPLAY,
                 "-o", str(store))
    assert out.returncode == 0, out.stderr
    assert store.read_text() == (ASSETS / "store.jsonl").read_text()
    assert "39/40 questions proven" in out.stderr

    theory = tmp_path / "theory.jsonl"
    out = reason("microtheory", "distill", "--store", str(store), "-k", "24", "--llm", REPLAY, "-o", str(theory))
    assert out.returncode == 0, out.stderr
    assert theory.read_text() == (ASSETS / "theory.jsonl").read_text()
    assert "Loading weights" not in out.stderr and "kernels-community" not in out.stderr  # no library chatter
    recs = _records(theory.read_text())
    summary = next(r for r in recs if r["type"] == "microtheory.summary")
    assert summary["raw_facts"] > summary["after_dedup"] > summary["after_condense"] >= 24
    sels = {r["strategy"]: r for r in recs if r["type"] == "microtheory.selection"}
    assert set(sels) == {"ilp-full", "ilp-partial", "greedy", "frequency"}
    assert all(len(s["facts"]) <= 24 for s in sels.values())
    assert sels["ilp-full"]["full"] >= max(s["full"] for s in sels.values())
    assert sels["ilp-partial"]["partial"] >= max(s["partial"] for s in sels.values())

    out = reason("microtheory", "ground", "-c", str(ASSETS / "corpus.jsonl"), "-q", str(ASSETS / "qa.jsonl"),
                 "--split", "test", "-t", str(theory), "--llm", REPLAY)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (ASSETS / "ground.jsonl").read_text()
    summ = {r["condition"]: r for r in _records(out.stdout) if r["type"] == "microtheory.grounding_summary"}
    assert summ["corpus+theory"]["grounded_rate"] > summ["corpus"]["grounded_rate"]
    assert summ["corpus+theory"]["grounded_accuracy"] > summ["corpus"]["grounded_accuracy"]

    out = reason("microtheory", "show", str(theory), "--strategy", "frequency")
    assert out.returncode == 0, out.stderr
    assert "microtheory (frequency, 24 facts)" in out.stderr and "A fish breathes with gills." in out.stderr


def test_coverage_and_curve(reason, tmp_path):
    out = reason("microtheory", "coverage", "-t", str(ASSETS / "theory.jsonl"), "-q", str(ASSETS / "qa.jsonl"),
                 "--split", "test", "--p", "0.5", "--sizes", "5,40", "--llm", REPLAY, "--embedder", "bow")
    assert out.returncode == 0, out.stderr
    recs = _records(out.stdout)
    cov = next(r for r in recs if r["type"] == "microtheory.coverage")
    per_q = [r for r in recs if r["type"] == "microtheory.relevance"]
    assert cov["proven"] == len(per_q) == 20
    assert cov["relevant"] == sum(r["relevant"] for r in per_q) > 0
    assert all(r["relevant"] == (r["fraction"] >= 0.5) for r in per_q)
    pts = [r for r in recs if r["type"] == "microtheory.curve_point"]
    assert [p["train_questions"] for p in pts] == [5, 39]
    assert pts[1]["p_relevance"] > pts[0]["p_relevance"]
    # a store file works as --questions too (no LLM needed)
    out2 = reason("microtheory", "coverage", "-t", str(ASSETS / "theory.jsonl"), "-q", str(ASSETS / "store.jsonl"),
                  "--p", "1", "--embedder", "bow")
    assert out2.returncode == 0, out2.stderr
    cov2 = next(r for r in _records(out2.stdout) if r["type"] == "microtheory.coverage")
    theory = _records((ASSETS / "theory.jsonl").read_text())
    sel = next(r for r in theory if r["type"] == "microtheory.selection" and r["strategy"] == "ilp-full")
    assert cov2["relevant"] == sel["full"]  # p=1 on the training store = full coverage from distill


def test_store_resume_and_bad_inputs(reason, tmp_path):
    qa = tmp_path / "qa.jsonl"
    rows = [json.loads(line) for line in (ASSETS / "qa.jsonl").read_text().splitlines()[:3]]
    qa.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out_path = tmp_path / "s.jsonl"
    assert reason("microtheory", "store", "-q", str(qa), "--llm", STANDIN, "-o", str(out_path)).returncode == 0
    full = out_path.read_text()
    out_path.write_text(full.splitlines(keepends=True)[0])
    res = reason("microtheory", "store", "-q", str(qa), "--llm", STANDIN, "-o", str(out_path), "--resume")
    assert res.returncode == 0 and out_path.read_text() == full

    del rows[1]["answer"]
    qa.write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = reason("microtheory", "store", "-q", str(qa), "--llm", STANDIN)
    assert res.returncode == 2 and "qa.jsonl:2: missing field 'answer'" in res.stderr
    assert "Traceback" not in res.stderr

    res = reason("microtheory", "distill", "--store", str(out_path), "-k", "50", "--llm", STANDIN,
                 "--embedder", "bow")
    assert res.returncode == 2 and "--budget 50: larger than the knowledge store" in res.stderr

    res = reason("microtheory", "store", "-q", str(ASSETS / "qa.jsonl"),
                 "--llm", "openai:m@http://127.0.0.1:9/v1?max_retries=0&timeout=5")
    assert res.returncode == 1 and "connection failed" in res.stderr and "Traceback" not in res.stderr

    res = reason("microtheory", "distill", "--store", str(out_path), "-k", "2", "-s", "magic", "--llm", STANDIN)
    assert res.returncode == 2 and "--strategy magic: unknown" in res.stderr


def test_help_has_examples(reason):
    for cmd in ("store", "distill", "coverage", "ground", "show"):
        out = reason("microtheory", cmd, "--help")
        assert out.returncode == 0 and "Example:" in out.stdout, cmd


def test_seed_reaches_the_llm_server(reason, tmp_path):
    """--seed of store/ground goes to the backend (OpenAI-compatible servers take a `seed`)."""
    from tests.support.openai_stub import StubServer, chat_payload
    from toolkit.microtheory import standin

    qa = tmp_path / "qa.jsonl"
    qa.write_text("".join((ASSETS / "qa.jsonl").read_text().splitlines(keepends=True)[:2]))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join((ASSETS / "corpus.jsonl").read_text().splitlines(keepends=True)[:20]))

    def respond(body):
        texts = standin.complete(body["messages"], n=body.get("n", 1), temperature=body.get("temperature", 0))
        return 200, chat_payload(texts)

    with StubServer(respond) as stub:
        uri = f"openai:stub@{stub.url}"
        store = reason("microtheory", "store", "-q", str(qa), "--llm", uri, "--seed", "7", "-o",
                       str(tmp_path / "s.jsonl"))
        assert store.returncode == 0, store.stderr
        n_store = len(stub.requests)
        ground = reason("microtheory", "ground", "-c", str(corpus), "-q", str(qa), "--llm", uri, "--seed", "8")
        assert ground.returncode == 0, ground.stderr
    seeds = [r.get("seed") for r in stub.requests]
    assert n_store > 0 and len(seeds) > n_store
    assert set(seeds[:n_store]) == {7} and set(seeds[n_store:]) == {8}
