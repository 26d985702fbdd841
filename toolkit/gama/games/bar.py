"""El Farol Bar: go or stay home; going pays only while the bar is not over capacity.

Rules as in the paper's game 2 and the official games/bar_game.py: the bar is fine when the share
of players who go is <= capacity; goers then get `go_payoff`, otherwise `crowded_payoff`;
staying home pays `home_payoff`. After a round, in the "implicit" mode (the leaderboard's and the
default) only the players who went learn how many went; a player who stayed home learns only its
own payoff. In the "explicit" mode everyone learns the attendance.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from toolkit.gama import parsing, scoring
from toolkit.gama.games.base import Decision, Game, Param


class Bar(Game):
    NAME = "bar"
    TITLE = "El Farol Bar"
    ANSWER_KEY = "decision"
    PARAMS = {
        "capacity": Param(0.6, "largest share of players that keeps the bar fun"),
        "go_payoff": Param(10, "payoff for going when the bar is not crowded"),
        "home_payoff": Param(5, "payoff for staying home"),
        "crowded_payoff": Param(0, "payoff for going when the bar is crowded"),
        "mode": Param("implicit", "implicit: only goers learn the attendance; explicit: everyone does", str,
                      ("implicit", "explicit")),
    }

    def validate(self):
        from toolkit.core.errors import InputError

        if not 0 <= self.p["capacity"] <= 1:
            raise InputError("bar: parameter 'capacity' must be between 0 and 1")
        if not self.p["crowded_payoff"] < self.p["home_payoff"] < self.p["go_payoff"]:
            raise InputError("bar: payoffs must satisfy crowded_payoff < home_payoff < go_payoff")

    @property
    def seats_free(self) -> int:
        """How many players may go without crowding the bar."""
        return math.floor(self.p["capacity"] * self.n + 1e-9)

    def play_round(self, k, ask):
        gos = [bool(g) for g in self.simultaneous(k, "go", ask)]
        count = sum(gos)
        ratio = count / self.n
        crowded = ratio > self.p["capacity"] + 1e-12
        go_pay = self.p["crowded_payoff"] if crowded else self.p["go_payoff"]
        outcome = {"round": k, "go": gos, "go_count": count, "go_ratio": ratio, "crowded": crowded,
                   "payoffs": [go_pay if g else self.p["home_payoff"] for g in gos]}
        self.history.append(outcome)
        return outcome

    @cached_property
    def go_probability(self) -> float:
        return self.equilibrium_probability()

    def equilibrium_probability(self) -> float:
        """Symmetric mixed Nash equilibrium: the go probability that makes going and staying equal."""
        from scipy.optimize import brentq  # here, not at import: scipy takes a while to load
        from scipy.stats import binom

        m, n = self.seats_free, self.n
        if m >= n:
            return 1.0
        if m <= 0:
            return 0.0
        a, h, c = self.p["go_payoff"], self.p["home_payoff"], self.p["crowded_payoff"]
        want = (h - c) / (a - c)  # required P(others going <= m - 1), which falls from 1 to 0 as p rises
        return float(brentq(lambda p: binom.cdf(m - 1, n - 1, p) - want, 0.0, 1.0, xtol=1e-15))

    def strategy_random(self, d: Decision, rng):
        return bool(rng.random() < 0.5)

    def strategy_equilibrium(self, d, rng):
        """A pure Nash equilibrium, the play the score rewards: the first floor(R x N) seats go, the rest stay
        (a goer who stayed home would earn less, a stayer who went would crowd the bar). The symmetric
        equilibrium is mixed (`equilibrium_probability`); learners with nothing to go on play that one."""
        return d.seat < self.seats_free

    def mixed(self, rng) -> bool:
        return bool(rng.random() < self.go_probability)

    def sees_attendance(self, seat: int, outcome: dict) -> bool:
        return self.p["mode"] == "explicit" or outcome["go"][seat]

    def _seen(self, seat: int) -> list[dict]:
        """The past rounds whose attendance this seat was told."""
        return [h for h in self.history if self.sees_attendance(seat, h)]

    def _others(self, seat: int, rounds: list[dict]) -> float:
        return float(np.mean([h["go_count"] - int(h["go"][seat]) for h in rounds]))

    def strategy_best_response(self, d, rng):
        """Go if the others in the last round this seat saw would have left room for it."""
        seen = self._seen(d.seat)
        if not seen:
            return self.mixed(rng)
        return self._others(d.seat, seen[-1:]) + 1 <= self.seats_free

    def strategy_fictitious(self, d, rng):
        """Go if the others' average attendance over the rounds this seat saw leaves room for it."""
        seen = self._seen(d.seat)
        if not seen:
            return self.mixed(rng)
        return self._others(d.seat, seen) + 1 <= self.seats_free

    def score(self):
        ratios = [h["go_ratio"] for h in self.history]
        return {"score": scoring.bar_score(ratios, self.p["capacity"]), "seat_scores": None,
                "trajectory": {"go_ratio": ratios}}

    def describe(self, seat):
        p = self.p
        return (f"You are {self.player(seat)}, one of {self.n} people deciding every evening whether to go to a "
                f"popular bar. {self.rounds_text()} Everyone decides at the same time. If at most "
                f"{p['capacity'] * 100:g}% of the people go, the bar is pleasant and each visitor gets "
                f"{p['go_payoff']:g} points; if more go, it is crowded and each visitor gets {p['crowded_payoff']:g}. "
                f"Staying home always gives {p['home_payoff']:g} points. Collect as many points as you can.")

    def request(self, d):
        return (f'Round {d.round}: do you go to the bar? Reply with a JSON object {{"{self.ANSWER_KEY}": '
                '"go"}} or {"' + self.ANSWER_KEY + '": "stay"}.')

    def report(self, seat, o):
        mine = "went" if o["go"][seat] else "stayed home"
        own = f"You {mine} and got {o['payoffs'][seat]:g} points."
        if not self.sees_attendance(seat, o):
            return f"Round {o['round']} result: {own}"
        state = "crowded" if o["crowded"] else "not crowded"
        return f"Round {o['round']} result: {o['go_count']} of {self.n} people went, so the bar was {state}. {own}"

    def parse(self, d, text):
        value = parsing.field(text, self.ANSWER_KEY)
        options = {"go": True, "yes": True, "stay": False, "no": False, "home": False, "stay home": False}
        return parsing.as_choice(value, options, self.ANSWER_KEY)
