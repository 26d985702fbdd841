"""What every game provides: rules (play_round), scores, built-in strategies and prompt text."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from toolkit.core.errors import InputError


@dataclass
class Decision:
    """One choice a seat must make now: `kind` names the action, `info` is the private context."""

    kind: str
    seat: int
    round: int
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Param:
    default: float | str
    help: str
    kind: type = float
    choices: tuple[str, ...] = ()  # for kind=str: the allowed words


Ask = Callable[[Decision], Any]
STRATEGIES = ("random", "equilibrium", "best-response", "fictitious")


def parse_number(text: str) -> float:
    """'2/3', '0.6' or '60%' as a float."""
    text = str(text).strip()
    try:
        if text.endswith("%"):
            return float(text[:-1]) / 100.0
        return float(Fraction(text))
    except (ValueError, ZeroDivisionError):
        raise InputError(f"parameter value {text!r}: expected a number such as 0.6, 60% or 2/3") from None


def fmt_number(x: float) -> str:
    """A readable number for prompts: integers bare, simple fractions as a/b."""
    if float(x).is_integer():
        return str(int(x))
    frac = Fraction(x).limit_denominator(12)
    if abs(float(frac) - x) < 1e-9:
        return f"{frac.numerator}/{frac.denominator}"
    return f"{x:g}"


class Game(ABC):
    """Base class. Subclasses set NAME, TITLE, PARAMS and implement the abstract methods."""

    NAME = ""
    TITLE = ""
    PARAMS: dict[str, Param] = {}
    ANSWER_KEY = "answer"

    def __init__(self, n_players: int, rounds: int, params: dict[str, float], rng: np.random.Generator):
        self.n = n_players
        self.rounds = rounds
        self.p = {k: spec.kind(params.get(k, spec.default)) for k, spec in self.PARAMS.items()}
        self.rng = rng
        self.history: list[dict[str, Any]] = []
        self.finished = False
        self.validate()

    # ----- rules
    def validate(self) -> None:
        """Raise InputError for parameter combinations the game cannot run (default: all are fine)."""
        return None

    @abstractmethod
    def play_round(self, k: int, ask: Ask) -> dict[str, Any]:
        """Ask the seats for their actions, apply the rules, append and return the round's outcome."""

    @abstractmethod
    def score(self) -> dict[str, Any]:
        """{'score': 0-100, 'seat_scores': list or None, 'trajectory': {metric: per-round list}}."""

    # ----- built-in strategies
    def act(self, strategy: str, decision: Decision, rng: np.random.Generator) -> Any:
        method = getattr(self, "strategy_" + strategy.replace("-", "_"))
        return method(decision, rng)

    # ----- prompts (LLM seats)
    @abstractmethod
    def describe(self, seat: int) -> str:
        """The game's rules as told to the player in `seat`."""

    @abstractmethod
    def request(self, decision: Decision) -> str:
        """The prompt asking for one decision, with the answer format."""

    @abstractmethod
    def report(self, seat: int, outcome: dict[str, Any]) -> str:
        """What the player in `seat` is told after a round."""

    @abstractmethod
    def parse(self, decision: Decision, text: str) -> Any:
        """The action in a model's answer; raise parsing.ParseError (with the reason) when it has none."""

    # ----- helpers
    def player(self, seat: int) -> str:
        return f"player_{seat}"

    def rounds_text(self) -> str:
        return f"The game lasts {self.rounds} round{'s' if self.rounds != 1 else ''}."

    def simultaneous(self, k: int, kind: str, ask: Ask, infos: list[dict] | None = None) -> list[Any]:
        return [ask(Decision(kind, seat, k, dict(infos[seat]) if infos else {})) for seat in range(self.n)]
