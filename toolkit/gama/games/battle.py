"""Battle Royale: players take turns shooting; the last one standing wins.

Rules as in the paper's game 7 (a many-player Truel) and GAMABench games/battle_royale.py: seat i
hits with probability hit_base + hit_step * i percent (35%, 40%, ... 80% by default), the turn
order runs from the weakest to the strongest shooter and wraps around the survivors, one turn per
round, and a shooter may also miss on purpose. The game stops when one player is left or the
rounds run out.
"""

from __future__ import annotations

import re

from toolkit.gama import parsing, scoring
from toolkit.gama.games.base import Decision, Game, Param


class Battle(Game):
    NAME = "battle"
    TITLE = "Battle Royale"
    ANSWER_KEY = "target"
    PARAMS = {
        "hit_base": Param(35, "hit rate (percent) of the weakest shooter, seat 0"),
        "hit_step": Param(5, "each later seat hits this many percent more often"),
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.alive = list(range(self.n))
        self.turn = 0  # seat whose turn it is

    def validate(self):
        from toolkit.core.errors import InputError

        top = self.p["hit_base"] + self.p["hit_step"] * (self.n - 1)
        if not (0 < self.p["hit_base"] <= 100 and 0 < top <= 100 and self.p["hit_step"] >= 0):
            raise InputError(f"battle: hit rates must stay within 0-100% (seat {self.n - 1} would have {top:g}%)")

    def hit_rate(self, seat: int) -> float:
        return (self.p["hit_base"] + self.p["hit_step"] * seat) / 100.0

    def strongest(self, shooter: int, alive: list[int]) -> int:
        return max((s for s in alive if s != shooter), key=lambda s: (self.hit_rate(s), s))

    def play_round(self, k, ask):
        shooter = self.turn
        target = ask(Decision("shoot", shooter, k, {"alive": list(self.alive)}))
        hit = target is not None and bool(self.rng.random() < self.hit_rate(shooter))
        return self.resolve(k, shooter, target, hit)

    def resolve(self, k: int, shooter: int, target: int | None, hit: bool) -> dict:
        """Apply one shot whose result is known (played here, or read from a recorded game)."""
        alive = list(self.alive)
        strongest = self.strongest(shooter, alive)
        hit = hit and target is not None
        if hit:
            self.alive.remove(target)
        outcome = {"round": k, "shooter": shooter, "alive_before": alive, "target": target, "hit": hit,
                   "strongest": strongest, "at_strongest": target == strongest, "alive": list(self.alive),
                   "payoffs": [1.0 if (len(self.alive) == 1 and s in self.alive) else 0.0 for s in range(self.n)]}
        self.history.append(outcome)
        if len(self.alive) <= 1:
            self.finished = True
        else:
            later = [s for s in self.alive if s > shooter]
            self.turn = later[0] if later else self.alive[0]
        return outcome

    def strategy_random(self, d: Decision, rng):
        others = [s for s in d.info["alive"] if s != d.seat]
        return int(others[int(rng.integers(len(others)))])

    def strategy_equilibrium(self, d, rng):
        """The play the score rewards: aim at the strongest opponent still standing."""
        return self.strongest(d.seat, d.info["alive"])

    def strategy_best_response(self, d, rng):
        """Retaliate against whoever last shot at me (if still standing), else aim at the strongest."""
        for h in reversed(self.history):
            if h["target"] == d.seat and h["shooter"] in d.info["alive"]:
                return h["shooter"]
        return self.strongest(d.seat, d.info["alive"])

    def strategy_fictitious(self, d, rng):
        """Aim at the standing opponent that has shot at me most often so far, else at the strongest."""
        counts: dict[int, int] = {}
        for h in self.history:
            if h["target"] == d.seat and h["shooter"] in d.info["alive"]:
                counts[h["shooter"]] = counts.get(h["shooter"], 0) + 1
        if counts:
            return max(counts, key=lambda s: (counts[s], self.hit_rate(s)))
        return self.strongest(d.seat, d.info["alive"])

    def score(self):
        aims = [h["at_strongest"] for h in self.history]
        seat_scores = []
        for s in range(self.n):
            mine = [h["at_strongest"] for h in self.history if h["shooter"] == s]
            seat_scores.append(scoring.battle_score(mine) if mine else None)
        return {"score": scoring.battle_score(aims), "seat_scores": seat_scores,
                "trajectory": {"alive": [len(h["alive"]) for h in self.history]}}

    def roster(self, alive: list[int]) -> str:
        return ", ".join(f"{self.player(s)} (hit rate {self.hit_rate(s) * 100:g}%)" for s in alive)

    def describe(self, seat):
        return (f"You are {self.player(seat)} in a shooting contest among {self.n} players; the last player standing "
                f"wins. {self.rounds_text()} Players shoot one at a time, from the lowest hit rate to the highest, "
                "and the order wraps around the survivors. On your turn you choose one other surviving player to "
                "shoot at, or you may miss on purpose. A hit eliminates the target. Players and hit rates: "
                f"{self.roster(list(range(self.n)))}. Your hit rate is {self.hit_rate(seat) * 100:g}%. "
                "Try to be the last one standing.")

    def request(self, d):
        return (f"Round {d.round}: it is your turn. Still standing: {self.roster(d.info['alive'])}. Who do you shoot "
                f'at? Reply with a JSON object {{"{self.ANSWER_KEY}": "player_<id>"}}, or '
                f'{{"{self.ANSWER_KEY}": "none"}} to miss on purpose.')

    def report(self, seat, o):
        who = "You" if o["shooter"] == seat else self.player(o["shooter"])
        if o["target"] is None:
            act = "missed on purpose."
        else:
            result = f"hit; {self.player(o['target'])} is out." if o["hit"] else "missed."
            act = f"shot at {self.player(o['target'])} and {result}"
        left = ", ".join(self.player(s) for s in o["alive"])
        return f"Round {o['round']}: {who} {act} Still standing: {left}."

    def parse(self, d, text):
        value = parsing.field(text, self.ANSWER_KEY)
        word = str(value).strip().lower()
        if word in ("none", "null", "miss", "nobody", ""):
            return None
        match = re.fullmatch(r"(?:player_?)?(\d+)", word)
        if not match:
            raise parsing.ParseError(f'"{self.ANSWER_KEY}" must look like "player_3" or "none", got {value!r}')
        target = int(match.group(1))
        if target == d.seat or target not in d.info["alive"]:
            raise parsing.ParseError(f"player_{target} is not a surviving opponent")
        return target
