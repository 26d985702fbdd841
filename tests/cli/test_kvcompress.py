"""End-to-end runs of `reason kvcompress ...` as a user would type them."""

import json

import pytest


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    from tests.support.tiny_models import build_kv_task_model

    return build_kv_task_model(tmp_path_factory.mktemp("kvc-cli-model"))


def test_score_then_eval_pipeline(reason, model_dir, tmp_path):
    scores = tmp_path / "scores.json"
    r = reason("kvcompress", "score", "--model", str(model_dir), "--method", "retrieval", "--out", str(scores),
               "--lengths", "96", "--depths", "0.5", "--trials", "1")
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)
    assert rec["type"] == "kvcompress.head_scores" and rec["method"] == "retrieval"
    assert "of heads score > 0.1" in r.stderr
    assert scores.exists() and scores.with_suffix(".png").exists()
    assert len(json.loads(scores.read_text())["scores"]) == 2

    out = tmp_path / "eval.jsonl"
    r = reason("kvcompress", "eval", "--model", str(model_dir), "--scores", str(scores), "--budgets", "16,24",
               "--methods", "full,snapkv,headkv", "--n", "1", "--lengths", "120", "--tasks", "single",
               "--out", str(out), "--seed", "3", env={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    # at 80 columns the table's columns are split, never cut: every header and method name whole
    assert "…" not in r.stderr and max(map(len, r.stderr.splitlines())) <= 80, r.stderr
    assert all(any(w in line for line in r.stderr.splitlines()) for w in
               ("method", "budget", "accuracy", "KV held", "attended", "read/token", "by task", "snapkv", "headkv",
                "single=")), r.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(x["method"], x["budget"]) for x in rows] == [("full", None), ("snapkv", 16), ("snapkv", 24),
                                                           ("headkv", 16), ("headkv", 24)]
    assert rows[0]["kv_fraction"] == 1.0
    assert rows[1]["kv_bytes_mean"] < rows[2]["kv_bytes_mean"] < rows[0]["kv_bytes_mean"]
    assert rows[1]["kv_bytes_mean"] == rows[3]["kv_bytes_mean"]  # same total budget
    assert "accuracy vs KV budget" in r.stderr
    assert rows[0]["answer_held_by_task"] == {"single": 1.0} and not rows[0]["pinned_support"]

    # the oracle diagnostic: with the answer path (17 words for two-hop) pinned and 20 slots a head, the answer is held
    pinned = tmp_path / "pinned.jsonl"
    r = reason("kvcompress", "eval", "--model", str(model_dir), "--scores", str(scores), "--budgets", "28",
               "--methods", "full,snapkv,headkv", "--n", "2", "--lengths", "120", "--tasks", "single,twohop",
               "--pin-support", "--out", str(pinned), "--seed", "3")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in pinned.read_text().splitlines()]
    assert [x["pinned_support"] for x in rows] == [False, True, True]
    assert all(x["answer_held_by_task"] == {"single": 1.0, "twohop": 1.0} for x in rows)


def test_mask_heads_records(reason, model_dir, tmp_path):
    scores = tmp_path / "s.json"
    scores.write_text(json.dumps({"scores": [[0.9, 0.0, 0.1, 0.0], [0.0, 0.3, 0.0, 0.0]]}))
    r = reason("kvcompress", "mask-heads", "--model", str(model_dir), "--scores", str(scores), "--k", "1",
               "--random", "2", "--n", "1", "--lengths", "80", "--tasks", "single")
    assert r.returncode == 0, r.stderr
    recs = [json.loads(line) for line in r.stdout.splitlines()]
    assert [x["masked"] for x in recs] == ["none", "top", "random"]
    assert recs[1]["heads"] == [[0, 0]]
    assert all([0, 0] not in d for d in recs[2]["heads"])


def test_errors_are_one_line(reason, model_dir, tmp_path):
    r = reason("kvcompress", "eval", "--model", str(model_dir), "--methods", "full,magic")
    assert r.returncode == 2 and "--methods" in r.stderr and "Traceback" not in r.stderr
    r = reason("kvcompress", "score", "--model", str(tmp_path / "nope"))
    assert r.returncode == 2 and "no such model directory" in r.stderr
    r = reason("kvcompress", "eval", "--model", str(model_dir), "--scores", str(tmp_path / "missing.json"),
               "--methods", "headkv")
    assert r.returncode == 2 and "no such head-score file" in r.stderr
    for opt, value, says in (("--head-lasso", "0.1,0.2", "one per layer (4)"), ("--tasks", "single,magic", "latent"),
                             ("--curriculum", "10:abc:2", "stage '10:abc:2'")):  # quoted as typed, no emoji
        r = reason("kvcompress", "train", "--out", str(tmp_path / "m"), opt, value)
        assert r.returncode == 2 and opt in r.stderr and says in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "m").exists()


def test_help_has_examples(reason):
    for cmd in ("score", "mask-heads", "eval", "train"):
        r = reason("kvcompress", cmd, "--help")
        assert r.returncode == 0 and "Example:" in r.stdout
