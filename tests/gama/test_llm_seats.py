"""LLM seats: prompts, bounded retries, the recorded invalid outcome, record/replay, stand-in answers."""

import json

import pytest

from toolkit.core.errors import RuntimeFailure
from toolkit.gama import Job, LLMSpec, play
from toolkit.gama import engine as engine_mod
from toolkit.gama.games import GAMES

SEEN: list[list[dict]] = []


def capture(messages, n=1, temperature=0.0, max_tokens=256, stop=None):
    SEEN.append(messages)
    from toolkit.gama.standin import respond

    return respond(messages, n=n, temperature=temperature)


@pytest.fixture(autouse=True)
def fresh_backends():
    engine_mod._BACKENDS.clear()
    SEEN.clear()
    yield
    engine_mod._BACKENDS.clear()


def llm_job(game, uri, players="llm*2,equilibrium", rounds=3, **kw):
    spec_fields = {k: kw.pop(k) for k in list(kw) if k in LLMSpec.__dataclass_fields__}
    return Job(game=game, players=players, n_players=4, rounds=rounds, llm=LLMSpec(uri=uri, **spec_fields), **kw)


def test_unreadable_answers_retried_at_most_n_times_then_invalid():
    records = play(llm_job("dollar", "py:toolkit.gama.standin:garbled", retries=2))
    backend = engine_mod._BACKENDS[("py:toolkit.gama.standin:garbled", None)]
    result = records[-1]
    assert result["llm_decisions"] == 6 and result["invalid"] == 6
    assert result["substituted"] == [3, 3, 0, 0]  # per seat: the two LLM seats, 3 rounds each
    assert backend.usage.calls == 6 * 3  # one try + two retries each, never more
    notes = records[0]["llm"]
    assert notes[0]["invalid"] and notes[0]["attempts"] == 3 and notes[0]["answer"] == "I would rather not say."
    # the fallback is still a legal action, and the round record names it
    assert all(0 <= c <= 100 for c in records[0]["outcome"]["claims"])
    assert notes[0]["substituted_action"] == records[0]["outcome"]["claims"][notes[0]["seat"]]


def test_invalid_outcome_replays_from_a_recording(tmp_path):
    rec = tmp_path / "garbled.jsonl"
    live = play(llm_job("bar", "py:toolkit.gama.standin:garbled", record=str(rec), retries=1))
    engine_mod._BACKENDS.clear()
    again = play(llm_job("bar", f"replay:{rec}", retries=1))
    strip = [{k: v for k, v in r.items() if k != "llm" or r["type"] == "gama.round"} for r in live]
    assert [{k: v for k, v in r.items() if k != "llm" or r["type"] == "gama.round"} for r in again] == strip
    assert again[-1]["invalid"] == 6
    exchanges = [json.loads(line) for line in rec.read_text().splitlines()]
    assert len(exchanges) == 6 * 2
    # with no retries allowed each decision is invalid after its single recorded answer
    engine_mod._BACKENDS.clear()
    fewer = play(llm_job("bar", f"replay:{rec}", retries=0))
    assert fewer[-1]["invalid"] == 6
    assert engine_mod._BACKENDS[(f"replay:{rec}", None)].usage.calls == 6


def test_retry_shows_the_reason_and_recovers():
    records = play(llm_job("guess", "py:tests.gama.test_llm_seats:capture", rounds=3))
    third = records[2]["llm"]
    assert [n["attempts"] for n in third] == [2, 2] and not any(n.get("invalid") for n in third)
    retried = [m for m in SEEN if len(m) > 1 and m[-1]["content"].startswith("Your answer could not be used")]
    assert retried and 'no "chosen_number" field' in retried[0][-1]["content"]


def test_prompts_have_description_reports_cot_and_persona():
    play(llm_job("goods", "py:tests.gama.test_llm_seats:capture", rounds=2, cot=True, persona="You are a banker."))
    first, later = SEEN[0], SEEN[-1]
    assert first[0]["role"] == "system" and first[0]["content"].startswith("You are a banker. You are player_0")
    assert "public goods" in first[0]["content"] and "step by step" in first[-1]["content"]
    assert any(m["content"].startswith("Round 1 result") for m in later)


@pytest.mark.parametrize("game", list(GAMES))
def test_standin_plays_every_game_without_invalid_answers(game):
    r = play(llm_job(game, "py:toolkit.gama.standin:respond", players="llm*2,random", rounds=4))[-1]
    assert r["invalid"] == 0 and r["llm_decisions"] > 0 and 0 <= r["score"] <= 100


def test_llm_seat_without_backend_and_broken_backend():
    from toolkit.core.errors import InputError

    with pytest.raises(InputError, match="--llm"):
        play(Job(game="guess", players="llm*1,random", n_players=2, rounds=1))
    with pytest.raises(RuntimeFailure, match="LLM backend failed"):
        play(llm_job("guess", "py:tests.gama.test_llm_seats:broken"))


def broken(messages, **kw):
    raise ValueError("boom")
