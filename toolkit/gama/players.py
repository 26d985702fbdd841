"""Seats at a table: built-in strategies and LLM players, built from a spec like "llm*3,equilibrium*7"."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from toolkit.core.errors import InputError, RuntimeFailure
from toolkit.gama.games.base import STRATEGIES, Decision, Game
from toolkit.gama.parsing import ParseError

ALIASES = {"br": "best-response", "best_response": "best-response", "fp": "fictitious", "eq": "equilibrium",
           "optimal": "equilibrium", "rand": "random"}
KINDS = (*STRATEGIES, "llm")


def parse_players(spec: str, n_players: int) -> list[str]:
    """Expand 'llm*3,random*2,equilibrium' to one strategy name per seat (one entry may fill the rest)."""
    entries = [e.strip() for e in spec.split(",") if e.strip()]
    if not entries:
        raise InputError("--players: empty spec; e.g. 'equilibrium' or 'llm*3,random*7'")
    named: list[tuple[str, int | None]] = []
    for entry in entries:
        name, _, count = entry.partition("*")
        name = ALIASES.get(name.strip().lower(), name.strip().lower())
        if name not in KINDS:
            raise InputError(f"--players: unknown player {name!r}; expected one of: {', '.join(KINDS)}")
        if count and not count.strip().isdigit():
            raise InputError(f"--players: count in {entry!r} must be a whole number")
        named.append((name, int(count) if count else None))
    open_ = [i for i, (_, c) in enumerate(named) if c is None]
    fixed = sum(c for _, c in named if c is not None)
    if len(open_) > 1:
        raise InputError("--players: at most one entry may omit its *count")
    if open_:
        if fixed >= n_players:
            raise InputError(f"--players: counts already fill {fixed} of {n_players} seats")
        named[open_[0]] = (named[open_[0]][0], n_players - fixed)
    elif fixed != n_players:
        raise InputError(f"--players: counts add up to {fixed}, but the table has {n_players} seats")
    return [name for name, count in named for _ in range(count)]


@dataclass
class Seat:
    """A built-in player: asks the game for the named strategy's action."""

    strategy: str
    rng: np.random.Generator

    def start(self, game: Game, seat: int) -> None:
        pass

    def decide(self, game: Game, decision: Decision) -> tuple[Any, dict]:
        return game.act(self.strategy, decision, self.rng), {}

    def observe(self, game: Game, seat: int, outcome: dict) -> None:
        pass


@dataclass
class LLMConfig:
    backend: Any
    temperature: float = 0.0
    max_tokens: int = 256
    retries: int = 2
    cot: bool = False
    persona: str | None = None


COT = ("Think it through step by step before answering: first explain your reasoning, then give the JSON "
       'object, adding an "explanation" field to it.')


@dataclass
class LLMSeat:
    """An LLM player: a running conversation of description + round reports, one request per decision.

    An unreadable answer is shown back to the model with the reason, at most `retries` times; after
    that the decision is recorded as invalid and the seat plays a random legal action instead (the official
    benchmark asks until an answer parses); the result counts these substitutions per seat.
    """

    config: LLMConfig
    rng: np.random.Generator
    messages: list[dict] = field(default_factory=list)

    strategy = "llm"

    def start(self, game: Game, seat: int) -> None:
        text = game.describe(seat)
        if self.config.persona:
            text = f"{self.config.persona.strip()} {text}"
        self.messages = [{"role": "system", "content": text}]

    def decide(self, game: Game, decision: Decision) -> tuple[Any, dict]:
        request = game.request(decision)
        if self.config.cot:
            request = f"{request} {COT}"
        convo = [*self.messages, {"role": "user", "content": request}]
        answers = []
        for attempt in range(self.config.retries + 1):
            try:
                completion = self.config.backend.complete(convo, temperature=self.config.temperature,
                                                          max_tokens=self.config.max_tokens)
            except RuntimeFailure:
                raise
            except Exception as exc:  # a backend bug must not look like a game result
                raise RuntimeFailure(f"LLM backend failed on round {decision.round}: {exc}") from exc
            text = completion.text
            answers.append(text)
            try:
                action = game.parse(decision, text)
            except ParseError as exc:
                convo = [*convo, {"role": "assistant", "content": text},
                         {"role": "user", "content": f"Your answer could not be used: {exc}. Please answer again."}]
                continue
            return action, {"attempts": attempt + 1, "answer": text}
        action = game.act("random", decision, self.rng)
        return action, {"attempts": len(answers), "answer": answers[-1], "invalid": True, "substituted_action": action}

    def observe(self, game: Game, seat: int, outcome: dict) -> None:
        self.messages.append({"role": "user", "content": game.report(seat, outcome)})


def make_seats(kinds: list[str], rngs: list[np.random.Generator], llm: LLMConfig | None) -> list:
    seats = []
    for kind, rng in zip(kinds, rngs, strict=True):
        if kind == "llm":
            if llm is None:
                raise InputError("--players names an llm seat: pass --llm URI (or set $REASON_LLM)")
            seats.append(LLMSeat(llm, rng))
        else:
            seats.append(Seat(kind, rng))
    return seats
