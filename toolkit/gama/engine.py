"""Play one run of one game: seat the players, play the rounds, emit `gama.round` and `gama.result` records."""

from __future__ import annotations

import zlib
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from toolkit.core.records import make_record
from toolkit.gama.games import game_class
from toolkit.gama.players import LLMConfig, make_seats, parse_players

ROUND, RESULT = "gama.round", "gama.result"
SCHEMA = 1


@dataclass(frozen=True)
class LLMSpec:
    """How to reach the LLM for llm seats; rebuilt inside each worker process (picklable)."""

    uri: str | None = None
    record: str | None = None
    temperature: float = 0.0
    max_tokens: int = 256
    retries: int = 2
    cot: bool = False
    persona: str | None = None


@dataclass(frozen=True)
class Job:
    game: str
    players: str
    run: int = 0
    seed: int = 0
    n_players: int = 10
    rounds: int = 20
    params: dict[str, float] = field(default_factory=dict)
    variant: str = "default"
    llm: LLMSpec = LLMSpec()
    rounds_out: bool = True

    @property
    def key(self) -> tuple:
        return (self.game, self.variant, self.players, self.run, self.seed)


def result_key(record: dict) -> tuple:
    return (record["game"], record["variant"], record["players"], record["run"], record["seed"])


_BACKENDS: dict[tuple, Any] = {}


def backend_for(spec: LLMSpec):
    """One backend per process and URI, so a replay serves repeated requests in recorded order."""
    key = (spec.uri, spec.record)
    if key not in _BACKENDS:
        from toolkit.core.llm import from_uri

        _BACKENDS[key] = from_uri(spec.uri, record=spec.record)
    return _BACKENDS[key]


def job_seeds(job: Job) -> np.random.SeedSequence:
    tag = zlib.crc32(f"{job.game}|{job.variant}".encode())
    return np.random.SeedSequence([job.seed & 0xFFFFFFFF, tag, job.run])


def play(job: Job) -> list[dict]:
    """All records of one run: its rounds (unless rounds_out is off) and then its result."""
    kinds = parse_players(job.players, job.n_players)
    game_seq, *seat_seqs = job_seeds(job).spawn(job.n_players + 1)
    game = game_class(job.game)(job.n_players, job.rounds, job.params, np.random.default_rng(game_seq))
    llm = None
    if "llm" in kinds:
        s = job.llm
        llm = LLMConfig(backend_for(s), s.temperature, s.max_tokens, s.retries, s.cot, s.persona)
    seats = make_seats(kinds, [np.random.default_rng(q) for q in seat_seqs], llm)
    for i, seat in enumerate(seats):
        seat.start(game, i)
    base = {"game": job.game, "variant": job.variant, "players": job.players, "run": job.run, "seed": job.seed}
    records, llm_decisions = [], 0
    substituted = [0] * job.n_players  # per seat: unreadable LLM answers replaced by a random action
    for k in range(1, job.rounds + 1):
        if game.finished:
            break
        notes: list[dict] = []

        def ask(decision, _notes=notes):
            action, meta = seats[decision.seat].decide(game, decision)
            if meta:
                _notes.append({"seat": decision.seat, "kind": decision.kind, **meta})
            return action

        outcome = game.play_round(k, ask)
        for i, seat in enumerate(seats):
            seat.observe(game, i, outcome)
        for note in notes:
            substituted[note["seat"]] += bool(note.get("invalid"))
        llm_decisions += len(notes)
        if job.rounds_out:
            records.append(make_record(ROUND, SCHEMA, **base, round=k, outcome=outcome, llm=notes))
    scored = game.score()
    by_player = {}
    if scored["seat_scores"] is not None:
        for kind in dict.fromkeys(kinds):
            vals = [s for s, kd in zip(scored["seat_scores"], kinds, strict=True) if kd == kind and s is not None]
            by_player[kind] = float(np.mean(vals)) if vals else None
    totals = np.sum([h["payoffs"] for h in game.history], axis=0).tolist() if game.history else []
    records.append(make_record(
        RESULT, SCHEMA, **base, title=game.TITLE, n_players=job.n_players, rounds=job.rounds,
        rounds_played=len(game.history), params=dict(game.p), seats=kinds, score=float(scored["score"]),
        seat_scores=scored["seat_scores"], by_player=by_player, payoffs=totals, invalid=sum(substituted),
        llm_decisions=llm_decisions, substituted=substituted, trajectory=scored["trajectory"],
        llm=asdict(job.llm) if llm is not None else None))
    return records
