"""Public Goods Game: contribute tokens to a pot that is multiplied and shared equally.

Rules as in the paper's game 4 and GAMABench games/public_goods.py, with the endowment reset to
`tokens` every round: payoff = tokens - contribution + multiplier * (all contributions) / N.
"""

from __future__ import annotations

import numpy as np

from toolkit.gama import parsing, scoring
from toolkit.gama.games.base import Decision, Game, Param


class Goods(Game):
    NAME = "goods"
    TITLE = "Public Goods Game"
    ANSWER_KEY = "contribution"
    PARAMS = {
        "tokens": Param(20, "tokens each player receives every round", int),
        "multiplier": Param(2.0, "the pot is multiplied by this before being shared"),
    }

    def validate(self):
        from toolkit.core.errors import InputError

        if self.p["tokens"] < 1 or self.p["multiplier"] < 0:
            raise InputError("goods: 'tokens' must be >= 1 and 'multiplier' >= 0")

    def play_round(self, k, ask):
        given = self.simultaneous(k, "contribute", ask)
        pot = float(sum(given))
        share = pot * self.p["multiplier"] / self.n
        outcome = {"round": k, "contributions": given, "pot": pot, "share": share,
                   "payoffs": [self.p["tokens"] - c + share for c in given]}
        self.history.append(outcome)
        return outcome

    def _dominant(self) -> int:
        # Each token given returns multiplier/N to the giver: keep everything unless that is >= 1.
        return 0 if self.p["multiplier"] < self.n else self.p["tokens"]

    def strategy_random(self, d: Decision, rng):
        return int(rng.integers(0, self.p["tokens"] + 1))

    def strategy_equilibrium(self, d, rng):
        return self._dominant()

    # Contributing nothing is dominant whatever the others did, so both learners reach it at once.
    strategy_best_response = strategy_equilibrium
    strategy_fictitious = strategy_equilibrium

    def score(self):
        given = [h["contributions"] for h in self.history]
        arr = np.asarray(given, dtype=float)
        t = self.p["tokens"]
        return {"score": scoring.goods_score(given, t),
                "seat_scores": [scoring.goods_score(arr[:, i], t) for i in range(self.n)],
                "trajectory": {"mean_contribution": [float(np.mean(g)) for g in given]}}

    def describe(self, seat):
        p = self.p
        return (f"You are {self.player(seat)}, one of {self.n} players in a public goods game. {self.rounds_text()} "
                f"At the start of every round each player receives {p['tokens']} tokens and secretly decides how "
                f"many of them (0 to {p['tokens']}) to put into a public pot. The pot is multiplied by "
                f"{p['multiplier']:g} and split equally among all {self.n} players; tokens you keep stay yours. "
                "Collect as many tokens as you can.")

    def request(self, d):
        return (f"Round {d.round}: how many tokens do you put into the pot? Reply with a JSON object "
                f'{{"{self.ANSWER_KEY}": <integer from 0 to {self.p["tokens"]}>}}.')

    def report(self, seat, o):
        return (f"Round {o['round']} result: you contributed {o['contributions'][seat]}; the pot held "
                f"{o['pot']:g} tokens and everyone's share was {o['share']:.2f}. Your payoff this round is "
                f"{o['payoffs'][seat]:.2f} tokens.")

    def parse(self, d, text):
        return parsing.as_int(parsing.field(text, self.ANSWER_KEY), 0, self.p["tokens"], self.ANSWER_KEY)
