import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets" / "chase_sql"
DEMO = ASSETS / "demo"
REPLAY = ASSETS / "replay-dev.jsonl"
STANDIN = "py:toolkit.chase_sql.standin:complete"


def lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("index-cache")


def test_run_replay_reproduces_shipped_predictions_then_eval(reason, tmp_path, cache):
    out, bird = tmp_path / "preds.jsonl", tmp_path / "bird.json"
    r = reason("chase-sql", "run", "--data", str(DEMO), "--llm", f"replay:{REPLAY}", "--limit", "4", "--out", str(out),
               "--bird-format", str(bird), "--cache-dir", str(cache))
    assert r.returncode == 0, r.stderr
    shipped = (ASSETS / "predictions-dev.jsonl").read_text().splitlines()[:4]
    assert out.read_text().splitlines() == shipped  # byte-identical to the recorded run
    preds = lines(out.read_text())
    assert [p["qid"] for p in preds] == ["0", "1", "2", "3"] and all(len(p["candidates"]) == 21 for p in preds)
    official = json.loads(bird.read_text())
    assert official["2"].endswith("\t----- bird -----\tlibrary") and len(official) == 4
    ev = reason("chase-sql", "eval", str(out), "--data", str(DEMO), "--split", "dev")
    assert ev.returncode == 0, ev.stderr
    recs = lines(ev.stdout)
    summary = recs[-1]
    assert summary["type"] == "sql.eval_summary" and summary["n"] == 4 and summary["metric"] == "bird"
    assert summary["ex"] == 100.0 * sum(r["correct"] for r in recs[:-1]) / 4
    assert summary["oracle"] >= summary["ex"] and "execution accuracy" in ev.stderr
    assert all(p["backend"] == "stand-in" for p in preds)  # recorded from the stand-in, and labelled so
    assert sum("pipeline demo, not a model result" in line for line in ev.stderr.splitlines()) == 1


def test_run_resume_skips_done_questions(reason, tmp_path, cache):
    out = tmp_path / "p.jsonl"
    shipped = (ASSETS / "predictions-dev.jsonl").read_text().splitlines()
    out.write_text("\n".join(shipped[:2]) + "\n" + shipped[2][:50])  # an interrupted run
    r = reason("chase-sql", "run", "--data", str(DEMO), "--llm", f"replay:{REPLAY}", "--limit", "3", "--out", str(out),
               "--resume", "--cache-dir", str(cache))
    assert r.returncode == 0, r.stderr
    assert out.read_text().splitlines() == shipped[:3]


def test_ask_prints_sql_and_table(reason, tmp_path, cache):
    db = DEMO / "dev_databases" / "transit" / "transit.sqlite"
    r = reason("chase-sql", "ask", "--db", str(db), "Which district is Osterbro Park station in?", "--llm", STANDIN,
               "--per-generator", "2", "--dialect", "postgres", "--cache-dir", str(cache))
    assert r.returncode == 0, r.stderr
    rec = lines(r.stdout)[0]
    assert "FROM stations WHERE name = 'Østerbro Park'" in rec["sql"]  # the misspelled value was retrieved
    assert rec["candidates"][rec["chosen"]]["result"]["rows"] == [["Østerbro"]]
    assert "│ Østerbro" in r.stderr and rec["sql_dialect"].startswith("SELECT")


def test_index_command_and_lookup(reason, tmp_path):
    db = tmp_path / "library.sqlite"
    shutil.copy(DEMO / "dev_databases" / "library" / "library.sqlite", db)
    r = reason("chase-sql", "index", "--db", str(db), "--lookup", "Gabriel Garcia Marquez")
    assert r.returncode == 0, r.stderr
    recs = lines(r.stdout)
    assert recs[0]["type"] == "sql.index" and recs[0]["n_values"] > 50 and recs[0]["rehashed"] == recs[0]["n_values"]
    assert recs[1]["value"] == "Gabriel García Márquez"
    again = lines(reason("chase-sql", "index", "--db", str(db)).stdout)[0]
    assert again["rehashed"] == 0 and (tmp_path / "library.sqlite.chase-index" / "meta.json").is_file()


def test_unreachable_llm_server_fails_cleanly(reason, cache):
    db = DEMO / "dev_databases" / "library" / "library.sqlite"
    r = reason("chase-sql", "ask", "--db", str(db), "How many members live in Hamburg?", "--llm",
               "openai:m@http://127.0.0.1:9/v1?max_retries=2&backoff=0.01", "--cache-dir", str(cache))
    assert r.returncode == 1
    assert "gave up after 3 attempts" in r.stderr and "Traceback" not in r.stderr


def test_bad_inputs(reason, tmp_path):
    preds = tmp_path / "bad.jsonl"
    good = (ASSETS / "predictions-dev.jsonl").read_text().splitlines()[0]
    preds.write_text(good + "\n{not json\n")
    r = reason("chase-sql", "eval", str(preds), "--data", str(DEMO))
    assert r.returncode == 2 and f"{preds}:2: malformed JSON" in r.stderr
    r = reason("chase-sql", "eval", str(preds), "--data", str(DEMO), "--skip-bad")
    assert r.returncode == 0 and "skipped 1 bad line" in r.stderr and lines(r.stdout)[-1]["n"] == 1
    r = reason("chase-sql", "run", "--data", str(tmp_path), "--llm", STANDIN)
    assert r.returncode == 2 and "neither a BIRD" in r.stderr
    r = reason("chase-sql", "ask", "--db", str(tmp_path / "none.sqlite"), "q", "--llm", STANDIN)
    assert r.returncode == 2 and "no such database file" in r.stderr
    r = reason("chase-sql", "run", "--data", str(DEMO), "--llm", STANDIN, "--generators", "dc,xx")
    assert r.returncode == 2 and "--generators" in r.stderr
    two = [str(ASSETS / "predictions-dev.jsonl")] * 2  # two predictions files need two --data directories
    r = reason("chase-sql", "train-selector", *two, "--data", str(DEMO), "--model", str(tmp_path), "--out",
               str(tmp_path / "sel"), "--classifier")
    assert r.returncode == 2 and "2 predictions file(s) but 1 --data" in r.stderr, r.stderr
    r = reason("chase-sql", "score-pairs", str(ASSETS / "selector-test-pairs.jsonl"), "--selector", "lora:x")
    assert r.returncode == 2 and "score-pairs takes model:DIR" in r.stderr


def test_help_has_examples(reason):
    for cmd in ("index", "ask", "run", "eval", "train-selector", "make-demo"):
        r = reason("chase-sql", cmd, "--help")
        assert r.returncode == 0 and "Example:" in r.stdout, cmd


def test_train_selector_then_ask_with_lora(reason, tmp_path, cache):
    pytest.importorskip("peft")
    from tests.chase_sql.test_selector_lora import tiny_lm

    model = tiny_lm(tmp_path / "lm")
    out = tmp_path / "lora"
    r = reason("chase-sql", "train-selector", str(ASSETS / "predictions-dev.jsonl"), "--data", str(DEMO), "--split",
               "dev", "--model", str(model), "--out", str(out), "--max-pairs", "8", "--epochs", "1",
               "--max-length", "48", "--device", "cpu")
    assert r.returncode == 0, r.stderr
    rep = lines(r.stdout)[0]
    assert rep["type"] == "sql.selector_training" and rep["pairs"] == 8 and rep["steps"] == 1
    assert (out / "adapter_config.json").is_file() and (out / "selector.json").is_file()
    db = DEMO / "dev_databases" / "library" / "library.sqlite"
    r = reason("chase-sql", "ask", "--db", str(db), "How many members live in Hamburg?", "--llm", STANDIN,
               "--per-generator", "2", "--selector", f"lora:{out}", "--cache-dir", str(cache))
    assert r.returncode == 0, r.stderr
    rec = lines(r.stdout)[0]
    assert rec["type"] == "sql.prediction" and rec["selection"] == "tournament" and len(rec["candidates"]) == 6


def test_core_commands_work_without_torch(reason, tmp_path, cache):
    fake = tmp_path / "site"
    for mod in ("torch", "transformers", "peft"):
        (fake / mod).mkdir(parents=True)
        (fake / mod / "__init__.py").write_text(f"raise ImportError('{mod} is not installed')\n")
    env = {"PYTHONPATH": f"{fake}:{ROOT}"}
    out = tmp_path / "p.jsonl"
    r = reason("chase-sql", "run", "--data", str(DEMO), "--llm", f"replay:{REPLAY}", "--limit", "1", "--out", str(out),
               "--cache-dir", str(cache), env=env)
    assert r.returncode == 0, r.stderr
    r = reason("chase-sql", "eval", str(out), "--data", str(DEMO), "--dialect", "bigquery", env=env)
    assert r.returncode == 0, r.stderr
    first = lines(r.stdout)[0]
    assert first["dialect"] == "bigquery" and first["sql_dialect"].startswith("SELECT")


def test_eval_rejects_unusable_prediction_fields(reason, tmp_path):
    good = json.loads((ASSETS / "predictions-dev.jsonl").read_text().splitlines()[0])
    for change, needle in [({"sql": 5}, "field 'sql': expected a string"),
                           ({"candidates": [{"generator": "dc"}]}, "field 'candidates'"),
                           ({"self_consistency": 99}, "field 'self_consistency'")]:
        preds = tmp_path / "p.jsonl"
        preds.write_text(json.dumps({**good, **change}) + "\n")
        r = reason("chase-sql", "eval", str(preds), "--data", str(DEMO))
        assert r.returncode == 2, r.stderr
        assert r.stderr.strip() == f"error: {preds}: qid {good['qid']}: {needle}" or needle in r.stderr
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_not_a_database_is_an_input_error(reason, tmp_path):
    fake = tmp_path / "notes.sqlite"
    fake.write_text("these are notes, not a database\n")
    for args in (("index", "--db", str(fake)),
                 ("ask", "--db", str(fake), "How many?", "--llm", f"replay:{REPLAY}")):
        r = reason("chase-sql", *args)
        assert r.returncode == 2, r.stderr
        assert r.stderr.strip() == f"error: {fake}: not a readable SQLite database (file is not a database)"


def test_workers_with_record_write_one_recording_in_question_order(reason, tmp_path, cache):
    common = ("chase-sql", "run", "--data", str(DEMO), "--limit", "3", "--per-generator", "2",
              "--cache-dir", str(cache))
    one_rec, two_rec = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    one = reason(*common, "--llm", STANDIN, "--record", str(one_rec))
    two = reason(*common, "--llm", STANDIN, "--record", str(two_rec), "--workers", "2")
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert two.stdout == one.stdout and two_rec.read_text() == one_rec.read_text()
    preds = lines(two.stdout)
    assert len(preds) == 3 and all(p["backend"] == "stand-in" for p in preds)
    replayed = reason(*common, "--llm", f"replay:{two_rec}")
    assert replayed.returncode == 0, replayed.stderr
    assert [p["sql"] for p in lines(replayed.stdout)] == [p["sql"] for p in preds]
