"""Guess 2/3 of the Average: everyone names a number; closest to ratio x average wins.

Rules as in the paper's game 1 and CUHK-ARISE/GAMABench games/guessing_game.py (integers in
[MIN, MAX]; the winners are the players closest to ratio * mean; ties share the win).
"""

from __future__ import annotations

import numpy as np

from toolkit.gama import parsing, scoring
from toolkit.gama.games.base import Decision, Game, Param, fmt_number


class Guess(Game):
    NAME = "guess"
    TITLE = "Guess 2/3 of the Average"
    ANSWER_KEY = "chosen_number"
    PARAMS = {
        "min": Param(0, "smallest number allowed", int),
        "max": Param(100, "largest number allowed", int),
        "ratio": Param(2 / 3, "target = ratio x average (2/3, 1/2, ...)"),
        "scoring": Param("bounded", "bounded: the 0-100 score; official: the official formula, above 100 "
                                    "possible when min > 0", str, scoring.GUESS_SCORINGS),
    }

    def validate(self) -> None:
        from toolkit.core.errors import InputError

        if self.p["max"] <= self.p["min"]:
            raise InputError("guess: parameter 'max' must be greater than 'min'")
        if self.p["ratio"] < 0:
            raise InputError("guess: parameter 'ratio' must not be negative")

    def play_round(self, k, ask):
        choices = self.simultaneous(k, "number", ask)
        mean = float(np.mean(choices))
        target = self.p["ratio"] * mean
        gaps = [abs(c - target) for c in choices]
        best = min(gaps)
        winners = [i for i, g in enumerate(gaps) if g == best]
        outcome = {"round": k, "choices": choices, "mean": mean, "target": target, "winners": winners,
                   "payoffs": [1.0 if i in winners else 0.0 for i in range(self.n)]}
        self.history.append(outcome)
        return outcome

    def _clip(self, x: float) -> int:
        return int(min(max(round(x), self.p["min"]), self.p["max"]))

    def strategy_random(self, d: Decision, rng):
        return int(rng.integers(self.p["min"], self.p["max"] + 1))

    def strategy_equilibrium(self, d: Decision, rng):
        """MIN for ratio < 1, MAX for ratio > 1; with ratio = 1 any common number is an equilibrium and
        the midpoint is the one the score rewards."""
        if self.p["ratio"] == 1:
            return int(round((self.p["min"] + self.p["max"]) / 2))
        return self.p["max"] if self.p["ratio"] > 1 else self.p["min"]

    def strategy_best_response(self, d: Decision, rng):
        last = self.history[-1]["mean"] if self.history else (self.p["min"] + self.p["max"]) / 2
        return self._clip(self.p["ratio"] * last)

    def strategy_fictitious(self, d: Decision, rng):
        means = [h["mean"] for h in self.history] or [(self.p["min"] + self.p["max"]) / 2]
        return self._clip(self.p["ratio"] * float(np.mean(means)))

    def score(self):
        lo, hi, r, how = self.p["min"], self.p["max"], self.p["ratio"], self.p["scoring"]
        choices = [h["choices"] for h in self.history]
        seats = np.asarray(choices, dtype=float)
        seat_scores = [scoring.guess_score([[c] for c in seats[:, i]], lo, hi, r, how) for i in range(self.n)]
        return {"score": scoring.guess_score(choices, lo, hi, r, how), "seat_scores": seat_scores,
                "trajectory": {"mean": [h["mean"] for h in self.history],
                               "target": [h["target"] for h in self.history]}}

    def describe(self, seat):
        p = self.p
        return (f"You are {self.player(seat)}, one of {self.n} players in a number-guessing game. "
                f"{self.rounds_text()} Every round, each player secretly picks an integer from {p['min']} "
                f"to {p['max']}. The round is won by whoever picks the number closest to "
                f"{fmt_number(p['ratio'])} of the average of all picks; ties share the win. "
                "Your aim is to win as many rounds as possible.")

    def request(self, d):
        return (f"Round {d.round}: which number do you pick? Reply with a JSON object "
                f'{{"{self.ANSWER_KEY}": <integer from {self.p["min"]} to {self.p["max"]}>}}.')

    def report(self, seat, o):
        won = "You won this round." if seat in o["winners"] else "You did not win this round."
        picks = ", ".join(str(c) for c in sorted(o["choices"]))
        return (f"Round {o['round']} result: the picks were {picks}. Their average is {o['mean']:.2f}, "
                f"and {fmt_number(self.p['ratio'])} of it is {o['target']:.2f}. "
                f"You picked {o['choices'][seat]}. {won}")

    def parse(self, d, text):
        value = parsing.field(text, self.ANSWER_KEY)
        return parsing.as_int(value, self.p["min"], self.p["max"], self.ANSWER_KEY)
