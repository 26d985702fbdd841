"""Divide the Dollar: each player claims part of G golds; if the claims fit, everyone gets theirs.

Rules as in the paper's game 3 and GAMABench games/divide_dollar.py: when the total claim is at
most G each player receives its claim, otherwise nobody receives anything.
"""

from __future__ import annotations

import numpy as np

from toolkit.gama import parsing, scoring
from toolkit.gama.games.base import Decision, Game, Param


class Dollar(Game):
    NAME = "dollar"
    TITLE = "Divide the Dollar"
    ANSWER_KEY = "claim"
    PARAMS = {"golds": Param(100, "golds to divide", int)}

    def validate(self):
        from toolkit.core.errors import InputError

        if self.p["golds"] < 1:
            raise InputError("dollar: parameter 'golds' must be >= 1")

    def play_round(self, k, ask):
        claims = self.simultaneous(k, "claim", ask)
        total = int(sum(claims))
        fits = total <= self.p["golds"]
        outcome = {"round": k, "claims": claims, "total": total, "fits": fits,
                   "payoffs": [float(c) if fits else 0.0 for c in claims]}
        self.history.append(outcome)
        return outcome

    def _fill(self, others: float) -> int:
        return int(min(max(round(self.p["golds"] - others), 0), self.p["golds"]))

    def strategy_random(self, d: Decision, rng):
        return int(rng.integers(0, self.p["golds"] + 1))

    def strategy_equilibrium(self, d, rng):
        share, extra = divmod(self.p["golds"], self.n)
        return share + (1 if d.seat < extra else 0)

    def strategy_best_response(self, d, rng):
        if not self.history:
            return self.strategy_equilibrium(d, rng)
        last = self.history[-1]
        return self._fill(last["total"] - last["claims"][d.seat])

    def strategy_fictitious(self, d, rng):
        if not self.history:
            return self.strategy_equilibrium(d, rng)
        others = np.mean([h["total"] - h["claims"][d.seat] for h in self.history])
        return self._fill(float(others))

    def score(self):
        totals = [h["total"] for h in self.history]
        return {"score": scoring.dollar_score(totals, self.p["golds"]), "seat_scores": None,
                "trajectory": {"total": totals}}

    def describe(self, seat):
        g = self.p["golds"]
        return (f"You are {self.player(seat)}, one of {self.n} players sharing {g} golds. {self.rounds_text()} "
                f"Every round, each player secretly claims a whole number of golds from 0 to {g}. If the claims "
                f"add up to {g} or less, every player receives what it claimed; if they add up to more, nobody "
                "receives anything that round. Collect as many golds as you can.")

    def request(self, d):
        return (f"Round {d.round}: how many golds do you claim? Reply with a JSON object "
                f'{{"{self.ANSWER_KEY}": <integer from 0 to {self.p["golds"]}>}}.')

    def report(self, seat, o):
        verdict = "did not exceed" if o["fits"] else "exceeded"
        return (f"Round {o['round']} result: you claimed {o['claims'][seat]}; all claims add up to {o['total']}, "
                f"which {verdict} {self.p['golds']}. You received {o['payoffs'][seat]:g} golds.")

    def parse(self, d, text):
        return parsing.as_int(parsing.field(text, self.ANSWER_KEY), 0, self.p["golds"], self.ANSWER_KEY)
