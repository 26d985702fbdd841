"""The real `reason ssm-limits` commands: pipelines, replay, the demo label, bad inputs."""

from __future__ import annotations

import json

import pytest

from tests.support.openai_stub import StubServer, chat_payload
from toolkit.ssm_limits.standin import noisy_solve

STANDIN = "py:toolkit.ssm_limits.standin:noisy"


def _lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_gen_ask_standin_score_pipeline_is_labelled_demo(reason, tmp_path):
    gen = reason("ssm-limits", "gen", "--task", "iterate", "--size", "8", "--depth", "1..3", "--n", "20")
    assert gen.returncode == 0, gen.stderr
    problems = tmp_path / "p.jsonl"
    problems.write_text(gen.stdout)
    ask = reason("ssm-limits", "ask", "-", "--llm", STANDIN, "--mode", "cot", "-j", "2", input=gen.stdout)
    assert ask.returncode == 0, ask.stderr
    responses = _lines(ask.stdout)
    assert len(responses) == 60 and all(r["backend"] == "stand-in" for r in responses)
    score = reason("ssm-limits", "score", "-", "--problems", str(problems), input=ask.stdout)
    assert score.returncode == 0, score.stderr
    curves = [r for r in _lines(score.stdout) if r["type"] == "ssm.curve"]
    assert [c["depth"] for c in curves] == [1, 2, 3]
    assert all(c["demo"] is True and c["note"] == "pipeline demo, not a model result" for c in curves)
    assert "pipeline demo, not a model result" in score.stderr
    solve = reason("ssm-limits", "solve", str(problems))
    assert all(r["ok"] for r in _lines(solve.stdout)) and len(_lines(solve.stdout)) == 60


def test_openai_backend_records_and_replay_is_byte_identical(reason, tmp_path):
    problems = tmp_path / "p.jsonl"
    gen = reason("ssm-limits", "gen", "--task", "mult", "--size", "3", "--depth", "2", "--n", "6", "-o", str(problems))
    assert gen.returncode == 0, gen.stderr
    stub = StubServer(lambda body: (200, chat_payload([noisy_solve(body["messages"][-1]["content"])])))
    with stub:
        live = reason("ssm-limits", "ask", str(problems), "--llm", f"openai:stub@{stub.url}", "--shots", "2",
                      "--record", str(tmp_path / "rec.jsonl"), "-o", str(tmp_path / "live.jsonl"))
    assert live.returncode == 0, live.stderr
    assert len(stub.requests) == 6 and len(stub.requests[0]["messages"]) == 5  # 2 shots + the problem
    replay = reason("ssm-limits", "ask", str(problems), "--llm", f"replay:{tmp_path / 'rec.jsonl'}", "--shots", "2",
                    "-o", str(tmp_path / "replay.jsonl"))
    assert replay.returncode == 0, replay.stderr
    live_recs = [{k: v for k, v in r.items() if k not in ("model", "config")}
                 for r in _lines((tmp_path / "live.jsonl").read_text())]
    replay_recs = [{k: v for k, v in r.items() if k not in ("model", "config")}
                   for r in _lines((tmp_path / "replay.jsonl").read_text())]
    assert live_recs == replay_recs
    again = reason("ssm-limits", "ask", str(problems), "--llm", f"replay:{tmp_path / 'rec.jsonl'}", "--shots", "2",
                   "-o", str(tmp_path / "replay2.jsonl"))
    assert (tmp_path / "replay2.jsonl").read_bytes() == (tmp_path / "replay.jsonl").read_bytes(), again.stderr
    miss = reason("ssm-limits", "ask", str(problems), "--llm", f"replay:{tmp_path / 'rec.jsonl'}", "--shots", "1")
    assert miss.returncode == 1 and "no recorded answer for request" in miss.stderr


def test_resume_keeps_records_and_rejects_a_changed_config(reason, tmp_path):
    problems = tmp_path / "p.jsonl"
    reason("ssm-limits", "gen", "--task", "dp", "--size", "6", "--n", "5", "-o", str(problems))
    out = tmp_path / "r.jsonl"
    first = reason("ssm-limits", "ask", str(problems), "--llm", STANDIN, "-o", str(out), "--resume")
    assert first.returncode == 0, first.stderr
    before = out.read_bytes()
    again = reason("ssm-limits", "ask", str(problems), "--llm", STANDIN, "-o", str(out), "--resume")
    assert again.returncode == 0 and out.read_bytes() == before
    changed = reason("ssm-limits", "ask", str(problems), "--llm", STANDIN, "--mode", "direct", "-o", str(out),
                     "--resume")
    assert changed.returncode == 2 and "changed config" in changed.stderr and out.read_bytes() == before


@pytest.mark.parametrize(("args", "words"), [
    (["gen", "--task", "iterate", "--size", "8", "--depth", "3..1"], "empty range"),
    (["gen", "--task", "iterate", "--size", "80"], "symbol pool"),
    (["gen", "--task", "zebra", "--size", "6", "--depth", "3"], "2..5"),
    (["gen", "--task", "zebra", "--size", "3", "--depth", "7"], "2..5"),
    (["sweep", "--bits", "0"], "--bits 0"),
    (["eval", "--model", "/nonexistent/model"], "no such model directory"),
])
def test_bad_inputs_one_line_exit_2(reason, args, words):
    r = reason("ssm-limits", *args)
    assert r.returncode == 2, r.stderr
    assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_bad_problem_lines(reason, tmp_path):
    gen = reason("ssm-limits", "gen", "--task", "iterate", "--size", "4", "--n", "2")
    good = json.loads(gen.stdout.splitlines()[0])
    missing = {k: v for k, v in good.items() if k != "trace"}
    unknown = {**good, "task": "sudoku"}
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(missing) + "\n")
    r = reason("ssm-limits", "solve", str(path), "-o", str(tmp_path / "out.jsonl"))
    assert r.returncode == 2 and f"{path}:2: missing field 'trace'" in r.stderr
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 1  # what was written is kept
    path.write_text(json.dumps(unknown) + "\n")
    r = reason("ssm-limits", "solve", str(path))
    assert r.returncode == 2 and "unknown task 'sudoku'" in r.stderr


def test_model_dir_checks(tmp_path, tiny_llama):
    from toolkit.core.errors import InputError
    from toolkit.ssm_limits.models import load

    not_lm = tmp_path / "notlm"
    not_lm.mkdir()
    (not_lm / "config.json").write_text(json.dumps({"model_type": "bert", "hidden_size": 8}))
    with pytest.raises(InputError, match="not a causal LM"):
        load(not_lm, "iterate")
    with pytest.raises(InputError, match="tokenizer lacks task symbols"):
        load(tiny_llama, "iterate")


def test_sweep_resume_keeps_one_summary(tmp_path):
    """A resumed sweep keeps every finished point and replaces the old summary instead of adding a second."""
    from toolkit.core.assets import asset_path
    from toolkit.core.records import read_records
    from toolkit.ssm_limits.sweep import run_sweep

    src = [json.loads(ln) for ln in asset_path("ssm_limits/sweep-120s.jsonl").read_text().splitlines()[:2]]
    out = tmp_path / "s.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in src)
                   + json.dumps({"type": "ssm.capacity-summary", "schema": 1, "task": "iterate"}) + "\n")
    for _ in range(2):  # both points are done, so nothing trains
        run_sweep(["iterate"], [4], [16, 64], 4, 120.0, 0, out, resume=True)
    recs = list(read_records(out))
    assert [r["type"] for r in recs] == ["ssm.capacity", "ssm.capacity", "ssm.capacity-summary"]
    assert recs[:2] == src
    assert recs[2]["bstar"] == [{"n": 4, "bstar": 256, "ratio": 32.0}]


def test_sweep_points_are_budgeted_in_steps():
    """A step budget gives the same point whatever the machine's load: the time is only a cap."""
    from toolkit.ssm_limits.sweep import run_point

    first = run_point("iterate", 4, 4, 4, seconds=600.0, seed=0, n_test=40, max_steps=5)
    again = run_point("iterate", 4, 4, 4, seconds=600.0, seed=0, n_test=40, max_steps=5)
    assert first["steps"] == again["steps"] == 5 and first["max_steps"] == 5
    assert first["accuracy"] == again["accuracy"]


def test_train_rejects_a_bad_curriculum_and_a_resume_without_a_step_budget(reason, tmp_path):
    pytest.importorskip("torch")
    out = str(tmp_path / "m")
    r = reason("ssm-limits", "train", "--curriculum", "8:1", "-o", out)
    assert r.returncode == 2 and "--curriculum 8:1: expected SIZES:DEPTHS@UNTIL_STEP" in r.stderr
    r = reason("ssm-limits", "train", "--curriculum", "8:1@500;8,16:1..2@400", "-o", out)
    assert r.returncode == 2 and "stage ends must increase" in r.stderr
    r = reason("ssm-limits", "train", "--steps", "0", "--resume", "-o", out)
    assert r.returncode == 2 and "--resume needs a step budget" in r.stderr
    assert "Traceback" not in r.stderr


def test_train_init_from_a_missing_or_other_shaped_model_is_an_input_error(reason, tmp_path):
    pytest.importorskip("torch")
    from toolkit.core.assets import asset_path

    r = reason("ssm-limits", "train", "--init", str(tmp_path / "none"), "--steps", "1", "-o", str(tmp_path / "m"))
    assert r.returncode == 2 and f"{tmp_path / 'none'}: no such --init model directory" in r.stderr
    base = asset_path("ssm_limits/models/transformer")
    if not (base / "config.json").exists():
        pytest.skip("models not shipped in this checkout")
    r = reason("ssm-limits", "train", "--init", str(base), "--hidden", "32", "--steps", "1", "-o", str(tmp_path / "m"))
    assert r.returncode == 2 and "hidden 64" in r.stderr and "hidden 32" in r.stderr
    assert "Traceback" not in r.stderr
