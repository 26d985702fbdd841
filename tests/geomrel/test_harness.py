"""Loading anchor files, the planted-label fixture, asking with shots / workers / resume, the classifier."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("shapely")
pytest.importorskip("lark")

from tests.support.openai_stub import StubServer, chat_payload  # noqa: E402
from toolkit.geomrel.verify import verify_item  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "assets" / "geomrel" / "fixture" / "project-wording.jsonl"
LINE_Q = ("ABCD is a rectangle. What is the positional relationship between line AB and line CD?\nAnswer choices:"
          "A. Parallel B. Perpendicular C. Intersecting but not perpendicular D. Cannot be inferred")


def _records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_planted_fixture_labels_are_flagged_with_their_status():
    rows = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    planted = [r for r in rows if r["planted_wrong"]]
    assert len(rows) == 120 and len(planted) == 20
    status = {r["planted_reason"]: verify_item(r)["status"] for r in planted}
    assert status["premise says perpendicular"] == "disagree"
    assert status["premise on AB, CD; EF never defined"] == "ambiguous"
    assert status["six letters for a pentagon"] == "inconsistent"
    assert status["convexity unstated"] == "ambiguous"
    assert status["a point on a side is on the boundary"] == "disagree"
    assert status["the right angle is at P, not B"] == "disagree"
    assert sum(s != "agree" for s in status.values()) == 20


def test_load_reads_anchor_and_ftdata_files(tmp_path, reason):
    basic = tmp_path / "data" / "basic"
    basic.mkdir(parents=True)
    (basic / "line.jsonl").write_text(json.dumps({"question": LINE_Q, "answer": "A", "relation": "LL_PA"}) + "\n")
    ft = tmp_path / "ftdata"
    ft.mkdir()
    prompt = LINE_Q + "\nGive me your choice at the end of your response."
    (ft / "train.jsonl").write_text(json.dumps({"prompt": prompt, "gold": "A", "source": "LL_PA"}) + "\n")
    r = reason("geomrel", "load", str(basic / "line.jsonl"), str(ft))
    assert r.returncode == 0, r.stderr
    items = _records(r.stdout)
    assert [(i["level"], i["domain"], i["answer"], i["relation"]) for i in items] == \
        [("basic", "line", "A", "LL_PA"), (None, "line", "A", "LL_PA")]
    assert items[1]["question"] == LINE_Q and len(items[0]["options"]) == 4
    v = reason("geomrel", "verify", "-", input=r.stdout)
    assert [x["status"] for x in _records(v.stdout)] == ["agree", "agree"]
    (basic / "bad.jsonl").write_text(json.dumps({"question": LINE_Q, "answer": "F"}) + "\n")
    bad = reason("geomrel", "load", str(basic / "bad.jsonl"))
    assert bad.returncode == 2 and "bad.jsonl:1" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_ask_with_shots_workers_and_resume(tmp_path, reason):
    """Shots become user/assistant turns before the question; a failing request is recorded and --resume asks it
    again, leaving the answered ones alone."""
    items = tmp_path / "items.jsonl"
    texts = [LINE_Q] * 3 + [LINE_Q.replace("ABCD", "WXYZ").replace("AB", "WX").replace("CD", "YZ")]
    items.write_text("".join(json.dumps({"id": f"q{i}", "question": t, "answer": "A"}) + "\n"
                             for i, t in enumerate(texts)))
    shots = tmp_path / "shots.jsonl"
    shots.write_text(json.dumps({"id": "s0", "question": LINE_Q.replace("rectangle", "square"), "answer": "A"})
                     + "\n")
    fail = {"on": True}
    stub = StubServer(lambda body: (500, {"error": "down"}) if fail["on"] and "WXYZ" in json.dumps(body) else
                      (200, chat_payload(["Opposite sides. Answer: A"])))
    stub.thread.start()
    out = tmp_path / "preds.jsonl"
    try:
        r = reason("geomrel", "ask", str(items), "--llm", f"openai:m@{stub.url}?max_retries=0", "--shots", "1",
                   "--shots-from", str(shots), "--workers", "2", "-o", str(out))
        assert r.returncode == 0, r.stderr
        assert "geomrel ask: 3 of 4 request(s) answered, 1 failed" in " ".join(r.stderr.split())
        sent = stub.requests[0]["messages"]
        assert [m["role"] for m in sent] == ["user", "assistant", "user"] and "square" in sent[0]["content"]
        assert sent[1]["content"].endswith("Answer: A")
        first = _records(out.read_text())
        assert [p["letter"] for p in first] == ["A", "A", "A", None]
        assert "HTTP 500" in first[3]["error"] and first[3]["parse_ok"] is False
        fail["on"], asked = False, len(stub.requests)
        r = reason("geomrel", "ask", str(items), "--llm", f"openai:m@{stub.url}?max_retries=0", "--shots", "1",
                   "--shots-from", str(shots), "--resume", "-o", str(out))
        assert r.returncode == 0, r.stderr
        assert len(stub.requests) == asked + 1  # only the failed item is asked again
    finally:
        stub.server.shutdown()
    again = _records(out.read_text())
    assert [p["id"] for p in again] == ["q0", "q1", "q2", "q3"] and [p["letter"] for p in again] == ["A"] * 4
    assert again[:3] == first[:3]
    bad = reason("geomrel", "ask", str(items), "--llm", "py:toolkit.geomrel.standin:respond", "--prompt", "tot")
    assert bad.returncode == 2 and "--prompt tot" in bad.stderr


def test_ask_fails_loudly_when_no_request_is_answered(tmp_path, reason):
    """Every request failing is an error (exit 1, one line) and the records keep each error for --resume; a
    port where nothing listens ends the run within seconds, not after retrying every item."""
    import time

    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"q{i}", "question": LINE_Q, "answer": "A"}) + "\n"
                             for i in range(3)))
    out = tmp_path / "preds.jsonl"
    with StubServer(lambda body: (500, {"error": "down"})) as stub:
        r = reason("geomrel", "ask", str(items), "--llm", f"openai:m@{stub.url}?max_retries=0", "-o", str(out))
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1, r.stderr
    assert lines[0].startswith("error: geomrel ask: all 3 request(s) failed; first: ") and "HTTP 500" in lines[0]
    assert [p["error"] is not None for p in _records(out.read_text())] == [True] * 3
    start = time.monotonic()
    r = reason("geomrel", "ask", str(items), "--llm", "openai:x@http://127.0.0.1:9", "--workers", "2")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and "127.0.0.1:9" in lines[0] and "gave up" in lines[0], r.stderr
    assert time.monotonic() - start < 15


def test_twenty_steps_lower_the_loss_and_classify_reads_the_model(tmp_path, reason):
    pytest.importorskip("torch")
    from toolkit.geomrel.classifier import train

    rows = [r for r in (json.loads(line) for line in FIXTURE.read_text().splitlines()) if not r["planted_wrong"]]
    for r in rows:
        r["options"] = r["question"].partition("Answer choices:")[2]
    from toolkit.geomrel.items import check_item

    items = [check_item({k: v for k, v in r.items() if k != "options"}, r["id"]) for r in rows]
    summary = train(items, tmp_path / "m", max_steps=20, minutes=5, seed=0)
    assert summary["steps"] == 20 and summary["loss_last"] < summary["loss_first"]
    assert 0.5e6 < summary["params"] < 1.5e6 and (tmp_path / "m" / "model.safetensors").stat().st_size < 4e6
    items_file = tmp_path / "items.jsonl"
    items_file.write_text("".join(json.dumps(r) + "\n" for r in items[:6]))
    r = reason("geomrel", "classify", str(items_file), "--model", str(tmp_path / "m"))
    assert r.returncode == 0, r.stderr
    preds = _records(r.stdout)
    assert len(preds) == 6 and all(p["letter"] in "ABCDE" and p["backend"] == "classifier" for p in preds)
    (tmp_path / "m" / "vocab.json").unlink()
    bad = reason("geomrel", "classify", str(items_file), "--model", str(tmp_path / "m"))
    assert bad.returncode == 2 and "missing vocab.json" in bad.stderr


def test_the_readme_pipeline_scores_against_the_file_it_is_still_writing(tmp_path):
    """`generate | tee items.jsonl | ... | eval - --gold items.jsonl`: eval must read the gold file only after the
    predictions' stream has ended, when tee has written all of it."""
    import subprocess
    import sys

    r = f"{sys.executable} -m cli geomrel"
    items = tmp_path / "items.jsonl"
    pipeline = (f"{r} generate --level basic --n 6 --seed 5 | tee {items} | {r} solve - "
                f"| {r} eval - --gold {items}")
    done = subprocess.run(["bash", "-c", f"set -o pipefail; {pipeline}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    (result,) = _records(done.stdout)
    assert result["n"] == 6 and result["accuracy"] == 1.0


def test_training_rewords_items_and_never_trains_on_a_held_out_question(tmp_path):
    pytest.importorskip("torch")
    from toolkit.geomrel.classifier import ENCODINGS, train, with_rephrasings

    items = [json.loads(line) for line in (ROOT / "assets/geomrel/examples/items.jsonl").read_text().splitlines()]
    train_items, held = items[:40], items[:5]
    texts = with_rephrasings(train_items, 2, seed=0)
    assert len(texts) == 120 and [t["answer"] for t in texts[40:42]] == [items[0]["answer"]] * 2
    summary = train(train_items, tmp_path / "m", max_steps=1, rephrasings=2, held=held, seed=0)
    held_words = {(name, tuple(words(it["question"]))) for it in held for name, words in ENCODINGS.items()}
    dropped = sum(any((name, tuple(words(t["question"]))) in held_words for name, words in ENCODINGS.items())
                  for t in texts)
    assert summary["dropped_held_out"] == dropped >= 5 and summary["texts"] == 120 - dropped


def test_replay_is_byte_identical_and_eval_keeps_agreeing_items(tmp_path, reason):
    rows = FIXTURE.read_text().splitlines()
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join([*rows[:3], *rows[100:102]]) + "\n")  # 3 correct, 2 planted wrong labels
    rec = tmp_path / "rec.jsonl"
    first = reason("geomrel", "ask", str(items), "--llm", "py:toolkit.geomrel.standin:respond", "--prompt", "geocot",
                   "--record", str(rec))
    again = reason("geomrel", "ask", str(items), "--llm", f"replay:{rec}", "--prompt", "geocot")
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    assert first.stdout == again.stdout and "pipeline demo, not a model result" in again.stderr
    verdicts = tmp_path / "v.jsonl"
    assert reason("geomrel", "verify", str(items), "-o", str(verdicts)).returncode == 0
    solved = reason("geomrel", "solve", str(items))
    ev = reason("geomrel", "eval", "-", "--gold", str(items), "--verdicts", str(verdicts), "--only", "agree",
                input=solved.stdout)
    assert ev.returncode == 0, ev.stderr
    assert _records(ev.stdout)[0]["n"] == 3 and _records(ev.stdout)[0]["accuracy"] == 1.0
    bad = reason("geomrel", "eval", "-", "--gold", str(items), "--only", "agree", input=solved.stdout)
    assert bad.returncode == 2 and "--only needs --verdicts" in bad.stderr


def test_shipped_classifier_reaches_its_readme_figure_on_the_examples(reason, tmp_path):
    """assets/geomrel/README.md: the shipped classifier (roles encoding) scores 0.850 on examples/ (200 items)."""
    pytest.importorskip("torch")
    examples = ROOT / "assets" / "geomrel" / "examples" / "items.jsonl"
    r = reason("geomrel", "classify", str(examples), "--model", str(ROOT / "assets" / "geomrel" / "classifier"))
    assert r.returncode == 0, r.stderr
    preds = tmp_path / "preds.jsonl"
    preds.write_text(r.stdout)
    e = reason("geomrel", "eval", str(preds), "--gold", str(examples))
    assert e.returncode == 0, e.stderr
    assert _records(e.stdout)[-1]["accuracy"] >= 0.85 - 0.02


ANCHOR_FIXTURE = ROOT / "assets" / "geomrel" / "fixture" / "anchor-wording.jsonl"


def test_anchor_wording_fixture_reads_and_flags_its_planted_labels():
    """Items in the released files' own wording and layout ("AB=5.What", comma-joined clauses, angle names, segment
    containment, collinearity): every one parses; correct ones agree; planted ones are flagged with a reason."""
    from toolkit.core.records import BadLines
    from toolkit.geomrel.load import load_file

    items = load_file(ANCHOR_FIXTURE, False, BadLines())
    rows = [json.loads(line) for line in ANCHOR_FIXTURE.read_text().splitlines()]
    verdicts = [verify_item(it) for it in items]
    assert len(items) == 30 and not [v["id"] for v in verdicts if v["status"] == "unparsed"]
    assert all(v["reason"] for v in verdicts)
    planted = {r["planted_reason"]: v for r, v in zip(rows, verdicts, strict=True) if r["planted_wrong"]}
    correct = [(it["id"], v["status"], v["reason"]) for r, it, v in zip(rows, items, verdicts, strict=True)
               if not r["planted_wrong"]]
    assert [c for c in correct if c[1] != "agree"] == []
    assert planted["the segment lies on a side"]["status"] == "ambiguous"
    flagged = {k: v["flag"] for k, v in planted.items() if v["status"] == "disagree"}
    assert flagged == {"premise says perpendicular": "mislabel",
                       "the right angle is at P, between PQ and PR": "mislabel",
                       "the point of tangency lies on the tangent line": "mislabel",
                       "the premise contradicts itself": "ill-posed",
                       "one angle is exterior, the other interior, on opposite sides": "mislabel",
                       "PR is a diagonal, not a side": "ill-posed",
                       "a radius is inside its circle": "mislabel",
                       "six vertices for a pentagon": "ill-posed"}
    assert "Perpendicular" in planted["premise says perpendicular"]["reason"]


def test_load_reads_stdin(reason):
    line = json.dumps({"question": "Quadrilateral KLMN is a rectangle.What is the relationship between line KL and "
                                   "line LM?\nAnswer choices:A. Parallel B. Perpendicular C. Intersecting but not "
                                   "perpendicular D. Cannot be inferred", "answer": "B", "relation": "LL_PE"})
    r = reason("geomrel", "load", "-", input=line + "\n")
    assert r.returncode == 0, r.stderr
    (item,) = _records(r.stdout)
    assert item["id"] == "stdin:1" and item["answer"] == "B" and item["domain"] == "line"
    v = reason("geomrel", "verify", "-", input=r.stdout)
    (verdict,) = _records(v.stdout)
    assert verdict["status"] == "agree" and verdict["derived"] == "perpendicular"


def test_generated_items_in_anchor_wording_read_back_to_their_proven_labels():
    """`generate --wording anchor` rewrites the text only; the anchor reader recovers every proven label."""
    from toolkit.geomrel.anchor_wording import anchor_text
    from toolkit.geomrel.generate import generate

    items = [{**it, "question": anchor_text(it)} for it in generate(6, 17, "basic", ["line"])]
    assert all(".What is the relationship between line" in it["question"] for it in items)
    verdicts = [verify_item(it) for it in items]
    assert [(v["reader"], v["status"]) for v in verdicts] == [("anchor", "agree")] * 6
