"""Sealed-Bid Auction (first price): private valuations, highest bid wins and pays its bid.

Rules as in the paper's game 6 and GAMABench games/sealed_bid_auction.py: every round each
bidder gets a fresh private valuation, all distinct (here multiples of `step` in [vmin, vmax],
drawn with the game's seeded generator); ties for the highest bid are broken at random. The
winner's utility is valuation - bid; everyone else gets 0. The winning bid is announced.
"""

from __future__ import annotations

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
        "step": Param(10, "valuations are distinct multiples of this", int),
    }

    def validate(self):
        from toolkit.core.errors import InputError

        p = self.p
        if p["step"] < 1 or p["vmax"] <= p["vmin"] or p["vmin"] < 0:
            raise InputError("auction: need 0 <= vmin < vmax and step >= 1")
        if len(self.grid()) < self.n:
            raise InputError(f"auction: only {len(self.grid())} distinct valuations for {self.n} players; "
                             "widen vmin..vmax or lower step")

    def grid(self) -> np.ndarray:
        p = self.p
        first = -(-p["vmin"] // p["step"]) * p["step"]
        return np.arange(first, p["vmax"] + 1, p["step"])

    def play_round(self, k, ask):
        values = [int(v) for v in self.rng.choice(self.grid(), size=self.n, replace=False)]
        bids = self.simultaneous(k, "bid", ask, [{"valuation": v} for v in values])
        top = max(bids)
        leaders = [i for i, b in enumerate(bids) if b == top]
        winner = int(leaders[int(self.rng.integers(len(leaders)))]) if len(leaders) > 1 else leaders[0]
        payoffs = [float(values[i] - bids[i]) if i == winner else 0.0 for i in range(self.n)]
        outcome = {"round": k, "valuations": values, "bids": bids, "winner": winner, "winning_bid": top,
                   "payoffs": payoffs}
        self.history.append(outcome)
        return outcome

    def _eq_bid(self, v: int) -> int:
        return int(round(v * (self.n - 1) / self.n))

    def strategy_random(self, d: Decision, rng):
        return int(rng.integers(0, d.info["valuation"] + 1))

    def strategy_equilibrium(self, d, rng):
        """Risk-neutral Bayes-Nash bid for uniform private values: (N - 1)/N of the valuation."""
        return self._eq_bid(d.info["valuation"])

    def strategy_best_response(self, d, rng):
        """Outbid last round's winning bid by 1 if that still leaves a profit, else shade as in equilibrium."""
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
        seat = [scoring.auction_score(v[:, i], b[:, i]) if (v[:, i] > 0).any() else None for i in range(self.n)]
        per_round = [scoring.auction_score(v[k], b[k]) for k in range(len(self.history))]
        return {"score": scoring.auction_score(vals, bids), "seat_scores": seat,
                "trajectory": {"kept_share": per_round}}

    def describe(self, seat):
        p = self.p
        return (f"You are {self.player(seat)}, one of {self.n} bidders in a sealed-bid auction. {self.rounds_text()} "
                f"Every round one item is sold. Each bidder privately learns how much the item is worth to them "
                f"(a value between {p['vmin']} and {p['vmax']}; no two bidders share a value) and submits one secret "
                "bid. The highest bid wins and the winner pays its own bid, earning its value minus its bid; the "
                "others earn nothing. Earn as much as you can.")

    def request(self, d):
        return (f"Round {d.round}: the item is worth {d.info['valuation']} to you. What do you bid? Reply with a "
                f'JSON object {{"{self.ANSWER_KEY}": <non-negative integer>}}.')

    def report(self, seat, o):
        if o["winner"] == seat:
            result = f"You won and paid {o['bids'][seat]}, earning {o['payoffs'][seat]:g}."
        else:
            result = "You did not win and earned 0."
        return (f"Round {o['round']} result: your value was {o['valuations'][seat]} and you bid {o['bids'][seat]}. "
                f"The winning bid was {o['winning_bid']}. {result}")

    def parse(self, d, text):
        return parsing.as_int(parsing.field(text, self.ANSWER_KEY), 0, 10 * self.p["vmax"], self.ANSWER_KEY)
