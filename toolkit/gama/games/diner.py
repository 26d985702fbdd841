"""Diner's Dilemma: order a cheap or a costly dish; the bill is split equally.

Rules as in the paper's game 5 and GAMABench games/diner_dilemma.py: a dish gives its utility,
every diner pays (total bill) / N.
"""

from __future__ import annotations

import numpy as np

from toolkit.gama import parsing, scoring
from toolkit.gama.games.base import Decision, Game, Param


class Diner(Game):
    NAME = "diner"
    TITLE = "Diner's Dilemma"
    ANSWER_KEY = "dish"
    PARAMS = {
        "cheap_cost": Param(10, "price of the cheap dish"),
        "cheap_utility": Param(15, "enjoyment of the cheap dish"),
        "costly_cost": Param(20, "price of the costly dish"),
        "costly_utility": Param(20, "enjoyment of the costly dish"),
    }

    def validate(self):
        from toolkit.core.errors import InputError

        p = self.p
        if not (p["cheap_cost"] < p["costly_cost"] and p["cheap_utility"] < p["costly_utility"]):
            raise InputError("diner: the costly dish must cost more and please more than the cheap one")

    def play_round(self, k, ask):
        costly = [bool(c) for c in self.simultaneous(k, "dish", ask)]
        p = self.p
        bill = sum(p["costly_cost"] if c else p["cheap_cost"] for c in costly)
        share = bill / self.n
        outcome = {"round": k, "costly": costly, "costly_count": sum(costly), "bill": bill, "share": share,
                   "payoffs": [(p["costly_utility"] if c else p["cheap_utility"]) - share for c in costly]}
        self.history.append(outcome)
        return outcome

    def costly_dominant(self) -> bool:
        """Ordering costly adds (u_costly - u_cheap) and costs only (c_costly - c_cheap)/N of one's own money."""
        p = self.p
        return p["costly_utility"] - p["cheap_utility"] > (p["costly_cost"] - p["cheap_cost"]) / self.n

    def strategy_random(self, d: Decision, rng):
        return bool(rng.random() < 0.5)

    def strategy_equilibrium(self, d, rng):
        return self.costly_dominant()

    # The dominant choice does not depend on the others, so both learners play it from round 1.
    strategy_best_response = strategy_equilibrium
    strategy_fictitious = strategy_equilibrium

    def score(self):
        costly = [h["costly"] for h in self.history]
        arr = np.asarray(costly, dtype=bool)
        return {"score": scoring.diner_score(costly),
                "seat_scores": [scoring.diner_score(arr[:, i]) for i in range(self.n)],
                "trajectory": {"costly_ratio": [h["costly_count"] / self.n for h in self.history]}}

    def describe(self, seat):
        p = self.p
        return (f"You are {self.player(seat)}, one of {self.n} friends dining together. {self.rounds_text()} "
                f"Every round each diner secretly orders either the cheap dish (price {p['cheap_cost']:g}, "
                f"enjoyment {p['cheap_utility']:g}) or the costly dish (price {p['costly_cost']:g}, enjoyment "
                f"{p['costly_utility']:g}). The whole bill is split equally among the {self.n} diners. Your "
                "payoff is your dish's enjoyment minus your share of the bill; make it as high as you can.")

    def request(self, d):
        return (f'Round {d.round}: which dish do you order? Reply with a JSON object {{"{self.ANSWER_KEY}": '
                '"cheap"}} or {"' + self.ANSWER_KEY + '": "costly"}.')

    def report(self, seat, o):
        mine = "costly" if o["costly"][seat] else "cheap"
        return (f"Round {o['round']} result: {o['costly_count']} of {self.n} diners ordered the costly dish; the "
                f"bill was {o['bill']:g}, so each paid {o['share']:.2f}. You ordered the {mine} dish and your payoff "
                f"is {o['payoffs'][seat]:.2f}.")

    def parse(self, d, text):
        options = {"cheap": False, "costly": True, "expensive": True}
        return parsing.as_choice(parsing.field(text, self.ANSWER_KEY), options, self.ANSWER_KEY)
