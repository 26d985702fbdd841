"""Sealed-Bid Auction: private valuations, the highest bid wins and pays its bid (or the second bid).

Rules as in the paper's game 6 and the official games/sealed_bid_auction.py: every round each
bidder gets a fresh private valuation, all distinct: `random.Random(seed + k - 1).sample(
range(vmin, vmax + step, step), N)` for round k, exactly the official draw, so every run and every
table sees the same valuations (seed 42 by default). Ties for the highest bid are broken at random.
The winner pays its own bid (`price=first`, the leaderboard's variant) or the second-highest bid
(`price=second`); its utility is valuation - payment, everyone else gets 0.
"""

from __future__ import annotations

import random

import numpy as np

from toolkit.gama import parsing, scoring
from toolkit.gama.games.base import Decision, Game, Param


class Auction(Game):
    NAME = "auction"
    TITLE = "Sealed-Bid Auction"
    ANSWER_KEY = "bid"
    PARAMS = {
        "vmin": Param(0, "smallest valuation", int),
        "vmax": Param(200, "largest valuation", int),
        "step": Param(10, "valuations are vmin, vmin + step, ... (distinct)", int),
        "seed": Param(42, "valuations of round k are drawn with seed + k - 1 (same in every run)", int),
        "price": Param("first", "the winner pays its own bid (first) or the second-highest bid (second)", str,
                       ("first", "second")),
    }

    def validate(self):
        from toolkit.core.errors import InputError

        p = self.p
        if p["step"] < 1 or p["vmax"] <= p["vmin"] or p["vmin"] < 0:
            raise InputError("auction: need 0 <= vmin < vmax and step >= 1")
        if len(self.grid()) < self.n:
            raise InputError(f"auction: only {len(self.grid())} distinct valuations for {self.n} players; "
                             "widen vmin..vmax or lower step")

    def grid(self) -> range:
        return range(self.p["vmin"], self.p["vmax"] + self.p["step"], self.p["step"])

    def valuations(self, k: int) -> list[int]:
        """Round k's valuations, as the official game draws them (Python's `random`, reseeded per round)."""
        return random.Random(self.p["seed"] + k - 1).sample(self.grid(), self.n)

    def play_round(self, k, ask):
        values = self.valuations(k)
        bids = self.simultaneous(k, "bid", ask, [{"valuation": v} for v in values])
        return self.settle(k, values, bids)

    def settle(self, k: int, values: list[int], bids: list[int], winner: int | None = None) -> dict:
        """Sell the item for one round's valuations and bids; `winner` settles a recorded tie."""
        top = max(bids)
        leaders = [i for i, b in enumerate(bids) if b == top]
        if winner not in leaders:
            winner = int(leaders[int(self.rng.integers(len(leaders)))]) if len(leaders) > 1 else leaders[0]
        pay = top if self.p["price"] == "first" else sorted(bids)[-2]
        payoffs = [float(values[i] - pay) if i == winner else 0.0 for i in range(self.n)]
        outcome = {"round": k, "valuations": values, "bids": bids, "winner": winner, "winning_bid": top,
                   "payment": pay, "payoffs": payoffs}
        self.history.append(outcome)
        return outcome

    def _eq_bid(self, v: int) -> int:
        if self.p["price"] == "second":
            return v  # bidding the valuation is dominant when the winner pays the second bid
        return int(round(v * (self.n - 1) / self.n))

    def strategy_random(self, d: Decision, rng):
        return int(rng.integers(0, d.info["valuation"] + 1))

    def strategy_equilibrium(self, d, rng):
        """First price: risk-neutral Bayes-Nash bid for uniform private values, (N - 1)/N of the valuation.
        Second price: the valuation itself (dominant)."""
        return self._eq_bid(d.info["valuation"])

    def strategy_best_response(self, d, rng):
        """Outbid last round's winning bid by 1 if that still leaves a profit, else bid as in equilibrium."""
        v = d.info["valuation"]
        if self.history and self.history[-1]["winning_bid"] + 1 < v:
            return int(self.history[-1]["winning_bid"] + 1)
        return self._eq_bid(v)

    def strategy_fictitious(self, d, rng):
        """Maximise (v - b) * P(winning bid < b) under the empirical distribution of past winning bids."""
        v = d.info["valuation"]
        if not self.history:
            return self._eq_bid(v)
        past = np.sort(np.asarray([h["winning_bid"] for h in self.history], dtype=float))
        bids = np.arange(0, v + 1)
        win = np.searchsorted(past, bids, side="left") / len(past)
        gain = (v - bids) * win
        return int(bids[int(np.argmax(gain))]) if gain.max() > 0 else self._eq_bid(v)

    def score(self):
        vals = [h["valuations"] for h in self.history]
        bids = [h["bids"] for h in self.history]
        v, b = np.asarray(vals, dtype=float), np.asarray(bids, dtype=float)
        seat = [scoring.auction_score(v[:, i], b[:, i]) for i in range(self.n)]
        per_round = [scoring.auction_score(v[k], b[k]) for k in range(len(self.history))]
        return {"score": scoring.auction_score(vals, bids), "seat_scores": seat,
                "trajectory": {"kept_share": per_round}}

    def describe(self, seat):
        p = self.p
        pays = "its own bid" if p["price"] == "first" else "the second-highest bid"
        return (f"You are {self.player(seat)}, one of {self.n} bidders in a sealed-bid auction. {self.rounds_text()} "
                f"Every round one item is sold. Each bidder privately learns how much the item is worth to them "
                f"(a value between {p['vmin']} and {p['vmax']}; no two bidders share a value) and submits one secret "
                f"bid. The highest bid wins and the winner pays {pays}, earning its value minus that payment; the "
                "others earn nothing. Earn as much as you can.")

    def request(self, d):
        v = d.info["valuation"]
        return (f"Round {d.round}: the item is worth {v} to you. What do you bid? Reply with a "
                f'JSON object {{"{self.ANSWER_KEY}": <integer between 0 and {v}>}}.')

    def report(self, seat, o):
        if o["winner"] == seat:
            result = f"You won and paid {o.get('payment', o['bids'][seat])}, earning {o['payoffs'][seat]:g}."
        else:
            result = "You did not win and earned 0."
        return (f"Round {o['round']} result: your value was {o['valuations'][seat]} and you bid {o['bids'][seat]}. "
                f"The winning bid was {o['winning_bid']}. {result}")

    def parse(self, d, text):
        return parsing.as_int(parsing.field(text, self.ANSWER_KEY), 0, d.info["valuation"], self.ANSWER_KEY)
