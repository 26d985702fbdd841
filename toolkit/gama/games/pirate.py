"""Pirate Game: the most senior pirate proposes how to split the gold; the crew votes.

Rules as in the paper's game 8 and the official games/pirate_game.py: seat 0 is the most senior
pirate. Each round the most senior pirate still aboard proposes integer shares of `golds` for
everyone aboard; every other pirate votes. The plan passes when at least half of the pirates
aboard (the proposer counts as a yes) accept, which ends the game; otherwise the proposer is
thrown overboard and the next one proposes. With one pirate left it keeps everything.

Scoring follows the official code: each proposal, scaled to 100 golds, is compared with the
100-gold equilibrium plan, and each vote with `scoring.pirate_vote` (see there).
"""

from __future__ import annotations

import math
from functools import cache

from toolkit.gama import parsing, scoring
from toolkit.gama.games.base import Decision, Game, Param


@cache
def spe_plan(n: int, golds: int) -> tuple[int, ...]:
    """Subgame-perfect plan for n pirates (index 0 proposes): buy the cheapest ceil(n/2)-1 votes.

    A voter accepts only when offered more than it gets after a rejection (the next plan, one
    pirate fewer), so each bought vote costs that amount + 1.
    """
    if n == 1:
        return (golds,)
    after = spe_plan(n - 1, golds)
    need = math.ceil(n / 2) - 1
    # equal prices: buy even ranks first, whose 1-gold offer the score calls right to accept
    cost = sorted((after[j - 1] + 1, j % 2, j) for j in range(1, n))[:need]
    plan = [0] * n
    for c, _odd, j in cost:
        plan[j] = c
    plan[0] = golds - sum(plan)
    return tuple(plan)


def rational_vote(n: int, golds: int, rank: int, offer: int) -> bool:
    """Accept iff the offer beats what this pirate (rank >= 1 among n aboard) gets after a rejection."""
    return offer > spe_plan(n - 1, golds)[rank - 1]


def fewest_golds(n: int) -> int:
    """The smallest hoard for which every proposer from n pirates down can buy the votes it needs."""
    return max(math.ceil(n / 2) - 1, 1)


class Pirate(Game):
    NAME = "pirate"
    TITLE = "Pirate Game"
    ANSWER_KEY = "vote"
    PARAMS = {"golds": Param(100, "golds to divide", int)}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.first = 0  # most senior pirate still aboard
        self.final: list[int] | None = None

    def validate(self):
        from toolkit.core.errors import InputError

        if self.p["golds"] < fewest_golds(self.n):
            raise InputError(f"pirate: parameter 'golds' must be at least {fewest_golds(self.n)} for {self.n} "
                             "players (enough to buy the votes a proposer needs)")

    @property
    def aboard(self) -> list[int]:
        return list(range(self.first, self.n))

    def play_round(self, k, ask):
        g, aboard = self.p["golds"], self.aboard
        n = len(aboard)
        proposer = aboard[0]
        plan = ask(Decision("propose", proposer, k, {"aboard": aboard}))
        votes = {proposer: True}
        neither = set()  # votes read from a file as neither accept nor reject: not a yes, never correct
        for rank, seat in enumerate(aboard[1:], start=1):
            vote = ask(Decision("vote", seat, k, {"aboard": aboard, "plan": plan, "share": plan[rank],
                                                  "proposer": proposer}))
            votes[seat] = bool(vote)
            if vote is None:
                neither.add(seat)
        yes = sum(votes.values())
        accepted = yes >= n / 2
        best = spe_plan(n, 100)
        correct = {seat: seat not in neither and votes[seat] == scoring.pirate_vote(rank, plan[rank])
                   for rank, seat in enumerate(aboard) if rank > 0}
        outcome = {"round": k, "proposer": proposer, "aboard": aboard, "plan": list(plan), "spe_plan": list(best),
                   "l1": scoring.pirate_l1(plan, g, best),
                   "votes": {str(s): v for s, v in votes.items()},
                   "vote_correct": {str(s): c for s, c in correct.items()},
                   "yes": yes, "accepted": accepted}
        if accepted:
            self.final = [0] * self.first + list(plan)
        else:
            self.first += 1
            if self.first == self.n - 1:
                self.final = [0] * (self.n - 1) + [g]
        outcome["payoffs"] = [float(x) for x in self.final] if self.final else [0.0] * self.n
        self.finished = self.final is not None
        self.history.append(outcome)
        return outcome

    # ----- strategies
    def strategy_random(self, d: Decision, rng):
        if d.kind == "vote":
            return bool(rng.random() < 0.5)
        n = len(d.info["aboard"])
        cuts = sorted(int(x) for x in rng.integers(0, self.p["golds"] + 1, size=n - 1))
        edges = [0, *cuts, self.p["golds"]]
        return [edges[i + 1] - edges[i] for i in range(n)]

    def strategy_equilibrium(self, d, rng):
        """Propose the subgame-perfect plan; vote as the score counts correct (`scoring.pirate_vote`),
        and as the subgame-perfect voter where no vote is (an offer of 1 at an odd rank)."""
        aboard = d.info["aboard"]
        rank = aboard.index(d.seat)
        if d.kind == "vote":
            official = scoring.pirate_vote(rank, d.info["share"])
            return rational_vote(len(aboard), self.p["golds"], rank, d.info["share"]) if official is None else official
        return list(spe_plan(len(aboard), self.p["golds"]))

    def strategy_best_response(self, d, rng):
        """Myopic greed: accept any positive share; propose 1 gold to the most junior pirates it needs."""
        aboard = d.info["aboard"]
        if d.kind == "vote":
            return d.info["share"] > 0
        n = len(aboard)
        need = math.ceil(n / 2) - 1
        plan = [0] * n
        for j in range(n - need, n):
            plan[j] = 1
        plan[0] = self.p["golds"] - need
        return plan

    # No repeated rounds to learn from in a one-shot sequential game: same myopic rule.
    strategy_fictitious = strategy_best_response

    def score(self):
        l1 = [h["l1"] for h in self.history]
        acc = [c for h in self.history for c in h["vote_correct"].values()]
        seat_scores = []
        for s in range(self.n):
            mine_l1 = [h["l1"] for h in self.history if h["proposer"] == s]
            mine_acc = [h["vote_correct"][str(s)] for h in self.history if str(s) in h["vote_correct"]]
            if mine_l1 and mine_acc:
                seat_scores.append(scoring.pirate_score(mine_l1, mine_acc))
            elif mine_l1:
                seat_scores.append(100.0 * (200 - sum(mine_l1) / len(mine_l1)) / 200)
            elif mine_acc:
                seat_scores.append(100.0 * sum(mine_acc) / len(mine_acc))
            else:
                seat_scores.append(None)
        return {"score": scoring.pirate_score(l1, acc), "seat_scores": seat_scores,
                "trajectory": {"l1": l1, "accept_ratio": [h["yes"] / len(h["aboard"]) for h in self.history]}}

    # ----- prompts
    def describe(self, seat):
        g = self.p["golds"]
        return (f"You are {self.player(seat)}, one of {self.n} pirates ranked by seniority: player_0 is the most "
                f"senior and player_{self.n - 1} the most junior. You have found {g} golds. The most senior pirate "
                "still aboard proposes how to split the golds among everyone aboard, then all pirates aboard vote. "
                "If at least half of them (the proposer included) accept, the split is carried out and the game "
                "ends; otherwise the proposer is thrown overboard and the next most senior pirate proposes. Every "
                "pirate wants first to survive, then to get as many golds as possible, and, all else being equal, "
                "prefers to see another pirate thrown overboard.")

    def request(self, d):
        aboard = d.info["aboard"]
        if d.kind == "propose":
            example = ", ".join(f'"player_{s}": <golds>' for s in aboard)
            return (f"Round {d.round}: you are the most senior pirate aboard and must propose a split of "
                    f"{self.p['golds']} golds among {', '.join(self.player(s) for s in aboard)}. Reply with a JSON "
                    f"object {{{example}}} whose whole numbers add up to {self.p['golds']}.")
        plan = ", ".join(f"{self.player(s)}: {x}" for s, x in zip(aboard, d.info["plan"], strict=True))
        return (f"Round {d.round}: {self.player(d.info['proposer'])} proposes {plan}. You would get "
                f'{d.info["share"]}. Do you accept? Reply with a JSON object {{"{self.ANSWER_KEY}": "accept"}} or '
                f'{{"{self.ANSWER_KEY}": "reject"}}.')

    def report(self, seat, o):
        verdict = "accepted; the game is over" if o["accepted"] else (
            f"rejected, so {self.player(o['proposer'])} was thrown overboard")
        mine = f" You receive {o['payoffs'][seat]:g} golds." if o["accepted"] else ""
        return (f"Round {o['round']} result: {o['yes']} of {len(o['aboard'])} pirates accepted the plan of "
                f"{self.player(o['proposer'])}; it was {verdict}.{mine}")

    def parse(self, d, text):
        if d.kind == "vote":
            options = {"accept": True, "yes": True, "reject": False, "no": False}
            return parsing.as_choice(parsing.field(text, self.ANSWER_KEY), options, self.ANSWER_KEY)
        aboard = d.info["aboard"]
        names = [self.player(s) for s in aboard]
        for obj in reversed(parsing.json_objects(text)):
            keys = {str(k).lower(): v for k, v in obj.items()}
            if all(n in keys for n in names):
                plan = [parsing.as_int(keys[n], 0, self.p["golds"], n) for n in names]
                if sum(plan) != self.p["golds"]:
                    raise parsing.ParseError(f"the shares add up to {sum(plan)}, not {self.p['golds']}")
                return plan
        raise parsing.ParseError(f"answer with one JSON object giving golds to each of {', '.join(names)}")
