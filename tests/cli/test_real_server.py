"""End to end against a real OpenAI-compatible server (`transformers serve`), not a mock.

One server, not pinned to a model: each request names a local model directory, loaded on first use (in a
process of its own, so the tests use two models, not more).
- An answer model (tests/support/real_server.py, constructed, not trained): greedy decoding writes a valid
  answer of the shape the request asks for, a game move for gama, a SQL query for chase-sql, a
  multiple-choice letter for geomrel; the tests assert what the commands parsed from them. A request that
  holds UNREADABLE gets an answer no command can read: the commands must finish, retry within their bounds
  and report what stayed unreadable.
- The shipped aha detector (assets/aha/model) with a chat template: `aha detect --llm` sends each grid as an
  image to the server, and the yes/no verdicts with explanations come back from the trained VLM.
"""

import json
import os
import sqlite3
import urllib.request
from pathlib import Path

import pytest

from tests.support.real_server import build_answer_model, missing_serving, servable_vlm
from tests.support.serve import transformers_server

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "assets" / "chase_sql" / "demo"
TRANSIT = DEMO / "dev_databases" / "transit" / "transit.sqlite"
AHA = ROOT / "assets" / "aha"
UNREADABLE = "(Answer unreadably.)"
ANSWERS = {  # cue in the request -> the answer model's reply (tests/support/real_server.py); the first found wins
    UNREADABLE: "I cannot tell.",  # for the error paths: no shape reads this
    '"chosen_number"': '{"chosen_number": 33}',  # a gama guess-game move
    "Answer choices": "Answer: B",  # a geomrel multiple-choice letter
    "SQL": "SELECT COUNT(*) FROM stations",  # a chase-sql query (generators, fixer and selector all ask for SQL)
}
_, MOVE, LETTER, SQL = ANSWERS.values()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """(base URL, {name: model directory}) of one running server."""
    missing = missing_serving()
    if missing:
        reason = f"transformers[serving] is not installed (missing: {', '.join(missing)})"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI installs the dev extra, which includes it")
        print(f"skipping real-server tests: {reason}")
        pytest.skip(reason)
    base = tmp_path_factory.mktemp("real-server")
    models = {"answers": build_answer_model(base / "answers", ANSWERS, default="I cannot tell."),
              "aha": servable_vlm(AHA / "model", base / "aha")}
    with transformers_server(None, start_timeout=240.0, log=base / "server.log") as url:
        warm_up(url, list(models.values()))
        yield url, models


def warm_up(url: str, models: list[Path]) -> None:
    """Load every model at once: the server runs each in its own process, whose start (importing torch)
    dominates a model's first call; the tests' own timeouts then apply to answering only."""
    from concurrent.futures import ThreadPoolExecutor

    def one(model: Path) -> None:
        body = json.dumps({"model": str(model), "messages": [{"role": "user", "content": "hello"}], "max_tokens": 1})
        request = urllib.request.Request(f"{url}/chat/completions", data=body.encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=300) as resp:
            assert resp.status == 200

    with ThreadPoolExecutor(len(models)) as pool:
        list(pool.map(one, models))


def llm(server, name: str) -> str:
    url, models = server
    return f"openai:{models[name]}@{url}"


def lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_gama_llm_seat_through_transformers_serve(reason, server):
    r = reason("gama", "play", "guess", "-P", "llm,equilibrium*2", "-n", "3", "-r", "2", "--retries", "1",
               "--max-tokens", "16", "--persona", UNREADABLE, "--llm", llm(server, "answers"))
    assert r.returncode == 0, r.stderr
    recs = lines(r.stdout)
    rounds = [x for x in recs if x["type"] == "gama.round"]
    result = next(x for x in recs if x["type"] == "gama.result")
    assert len(rounds) == 2 and result["rounds_played"] == 2
    seat = [d for x in rounds for d in x["llm"]]
    assert len(seat) == 2 and all(d["attempts"] == 2 for d in seat)  # first ask + one bounded retry, no more
    assert result["llm_decisions"] == 2 and result["invalid"] == 2
    assert "replaced by a random action after the retries: 2" in r.stderr
    assert result["substituted"] == [2, 0, 0] and "per seat [2, 0, 0]" in r.stderr
    assert result["seat_scores"][1:] == [100.0, 100.0]  # the equilibrium seats are unaffected
    assert "backend" not in result  # a real server's answers are not a stand-in's


def test_gama_llm_seat_move_is_parsed(reason, server):
    r = reason("gama", "play", "guess", "-P", "llm,equilibrium*2", "-n", "3", "-r", "2", "--retries", "1",
               "--max-tokens", "16", "--llm", llm(server, "answers"))
    assert r.returncode == 0, r.stderr
    recs = lines(r.stdout)
    rounds = [x for x in recs if x["type"] == "gama.round"]
    result = next(x for x in recs if x["type"] == "gama.result")
    seat = [d for x in rounds for d in x["llm"]]
    assert len(seat) == 2 and all(d["attempts"] == 1 and d["answer"] == MOVE for d in seat)
    assert result["invalid"] == 0 and result["substituted"] == [0, 0, 0]
    assert [x["outcome"]["choices"][0] for x in rounds] == [33, 33]  # the seat played the number it wrote


def test_chase_sql_ask_through_transformers_serve(reason, server, tmp_path):
    r = reason("chase-sql", "ask", "--db", str(TRANSIT), f"How many stations are there? {UNREADABLE}",
               "--llm", llm(server, "answers"), "--per-generator", "1", "--fix-attempts", "2",
               "--cache-dir", str(tmp_path))
    assert r.returncode == 0, r.stderr
    rec = lines(r.stdout)[0]
    assert rec["type"] == "sql.prediction" and len(rec["candidates"]) == 3
    for cand in rec["candidates"]:
        assert cand["result"]["status"] == "error"  # nothing readable came back: reported, not hidden
        assert 1 <= len(cand["fixes"]) <= 2  # the fixer retried within its bound
    calls = next(line for line in r.stderr.splitlines() if line.startswith("LLM:"))
    assert int(calls.split()[1]) >= 3 and " 0 prompt" not in calls  # token counts came from the server


def test_chase_sql_ask_runs_the_served_query(reason, server, tmp_path):
    r = reason("chase-sql", "ask", "--db", str(TRANSIT), "How many stations are there?",
               "--llm", llm(server, "answers"), "--per-generator", "1", "--fix-attempts", "2",
               "--cache-dir", str(tmp_path))
    assert r.returncode == 0, r.stderr
    rec = lines(r.stdout)[0]
    (count,) = sqlite3.connect(TRANSIT).execute("SELECT COUNT(*) FROM stations").fetchone()
    assert len(rec["candidates"]) == 3
    for cand in rec["candidates"]:
        assert cand["sql"] == SQL and cand["result"]["status"] == "ok" and not cand["fixes"]
    assert rec["sql"] == SQL
    assert all(c["result"]["rows"] == [[count]] for c in rec["candidates"]), rec["candidates"][0]["result"]


def test_geomrel_letter_is_parsed(reason, server, tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text("".join((ROOT / "assets" / "geomrel" / "examples" / "items.jsonl").read_text()
                             .splitlines(keepends=True)[:3]))
    r = reason("geomrel", "ask", str(items), "--llm", llm(server, "answers"))
    assert r.returncode == 0, r.stderr
    preds = lines(r.stdout)
    assert len(preds) == 3 and all(p["type"] == "geomrel.pred" for p in preds)
    assert [(p["letter"], p["parse_ok"], p["raw"]) for p in preds] == [("B", True, LETTER)] * 3


def test_aha_detect_llm_sends_images_to_the_served_vlm(reason, server):
    r = reason("aha", "detect", str(AHA / "examples" / "samples.jsonl"), "--llm", llm(server, "aha"),
               "--max-new-tokens", "24")
    assert r.returncode == 0, r.stderr
    verdicts = lines(r.stdout)
    assert len(verdicts) == 16 and all(v["type"] == "aha.verdict" for v in verdicts)
    assert all(v["label"] in ("Yes", "No") for v in verdicts), [v["raw"] for v in verdicts]
    no = [v for v in verdicts if v["label"] == "No"]
    assert no and all(len(v["explanation"].split()) >= 3 for v in no)  # a verdict with its explanation
    calls = next(line for line in r.stderr.splitlines() if line.startswith("LLM:"))
    assert calls.startswith("LLM: 16 call(s)")


def test_served_vlm_template_renders_the_local_prompt(tmp_path):
    """The chat template gives the server the very prompt `aha detect` builds for the local model."""
    pytest.importorskip("transformers")
    from transformers import AutoProcessor

    from toolkit.core.vlm import load_vlm

    local = load_vlm(AHA / "model", device="cpu")
    served = AutoProcessor.from_pretrained(servable_vlm(AHA / "model", tmp_path / "aha"))
    turns = [("Did it succeed?", "No, the cube slipped."), ("Why?", None)]
    messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": turns[0][0]}]},
                {"role": "assistant", "content": [{"type": "text", "text": turns[0][1]}]},
                {"role": "user", "content": [{"type": "text", "text": turns[1][0]}]}]
    assert local.conversation_prompt(turns) == served.apply_chat_template(messages, tokenize=False,
                                                                          add_generation_prompt=True)
