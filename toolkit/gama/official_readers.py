"""How each game's official run file is read, with the official analysis's own tolerance.

The official code (CUHK-ARISE/GAMABench) rebuilds a game as `GameClass(**meta)` and scores the
round records it stored. So a meta key left out of a file takes the constructor's default; Diner's
Dilemma counts `responses.count('cheap')` (any other answer is costly) and El Farol
`responses.count('go')`; a Battle Royale shot at a player who is already out (or at oneself) is
simply a turn not aimed at the strongest. Each such reading is kept in `RunFile.normalised` as
"KIND: detail" with KIND one of meta, answers, shot, model; what the official code would crash on
(a number that is not a number, a missing round key) stays an error naming the file and the key.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolkit.core.errors import InputError
from toolkit.gama.games.base import Decision, Game

# The name each game has in the official file names and folders.
OFFICIAL_NAMES = {"guessing_game": "guess", "bar_game": "bar", "divide_dollar": "dollar", "public_goods": "goods",
                  "diner_dilemma": "diner", "sealed_bid_auction": "auction", "battle_royale": "battle",
                  "pirate_game": "pirate"}

# The official constructors' defaults (games/*.py `__init__`), used for a meta key a file leaves out.
OFFICIAL_DEFAULTS = {
    "guess": {"min": 0, "max": 100, "ratio": 2 / 3},
    "bar": {"min": 0, "max": 10, "home": 5, "ratio": 0.6, "mode": "implicit"},
    "dollar": {"golds": 100},
    "goods": {"tokens": 20, "ratio": 2},
    "diner": {"cheap_cost": 10, "cheap_utility": 15, "exp_cost": 20, "exp_utility": 20},
    "auction": {"valuation_min": 0, "valuation_max": 200, "interval": 10, "mode": "highest bid"},
    "battle": {"base_hit_rate": 35, "interval": 5},
    "pirate": {"gold": 100},
}
OFFICIAL_PLAYERS = 10


class BadRunFile(InputError):
    """A run file that cannot be read as an official run; the message names the file and the key."""


def file_identity(path: Path) -> tuple[str, str, str, str]:
    """(game, model prefix or "", version, tag) from the file name, e.g. llama-3.1-8b_pirate_game_v1_3.json."""
    stem = path.stem
    for official, ours in OFFICIAL_NAMES.items():
        at = stem.find(official)
        if at >= 0:
            rest = stem[at + len(official):].lstrip("_")
            rest = re.sub(r"^(implicit|explicit)_?", "", rest)
            version, _, tag = rest.partition("_")
            return ours, stem[:at].rstrip("_-"), version or "v1", tag
    raise BadRunFile(f"{path}: file name: unknown game name in {path.name!r}; expected one of: "
                     f"{', '.join(OFFICIAL_NAMES)}")


class RunFile:
    """One official run file, with errors that name the file and the key and a list of what was bent."""

    def __init__(self, path: Path):
        self.path = path
        self.normalised: list[str] = []
        self.odd_answers: Counter = Counter()  # answers outside a counted game's two words
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise BadRunFile(f"{path}: cannot read the file ({exc})") from None
        except json.JSONDecodeError as exc:
            raise BadRunFile(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise BadRunFile(f"{path}: expected a JSON object with keys meta, round_records, player_data")
        for key in ("meta", "round_records", "player_data"):
            if key not in data:
                raise BadRunFile(f"{path}: missing key '{key}'")
        if not isinstance(data["meta"], dict):
            raise BadRunFile(f"{path}: meta: expected an object")
        if not isinstance(data["round_records"], list) or not data["round_records"]:
            raise BadRunFile(f"{path}: round_records: expected a non-empty list")
        self.meta: dict = data["meta"]
        self.data = data
        self.game = file_identity(path)[0]

    def fail(self, key: str, what: str) -> BadRunFile:
        return BadRunFile(f"{self.path}: {key}: {what}")

    def bend(self, kind: str, detail: str) -> None:
        self.normalised.append(f"{kind}: {detail}")

    def model(self, prefix: str, fallback: tuple[str, str]) -> str:
        """The file-name prefix, else meta.models, else the fallback (recorded as a normalisation)."""
        if prefix:
            return prefix
        if self.meta.get("models"):
            return str(self.meta["models"])
        name, source = fallback
        self.bend("model", f"the file names no model (no file-name prefix, no meta.models); {name!r} from {source}")
        return name

    def get(self, key: str, kind: type = float) -> Any:
        """A number (or string) from meta; a missing key takes the official default and is recorded."""
        if key not in self.meta:
            default = OFFICIAL_DEFAULTS[self.game].get(key)
            if default is None:
                raise self.fail(f"meta.{key}", "missing key")
            self.bend("meta", f"'{key}' missing; the official default {default!r}")
            return default
        value = self.meta[key]
        try:
            return kind(value) if kind is not str else str(value)
        except (TypeError, ValueError):
            raise self.fail(f"meta.{key}", f"expected a {kind.__name__}, got {value!r}") from None

    def players(self) -> int:
        if "player_num" in self.meta:
            n = self.get("player_num", int)
        else:
            data = self.data["player_data"]
            if isinstance(data, list) and data:
                n, how = len(data), "the length of player_data"
            else:
                n, how = OFFICIAL_PLAYERS, "the official default"
            self.bend("meta", f"'player_num' missing; {n} players ({how})")
        if n < 2:
            raise self.fail("meta.player_num", f"expected at least 2 players, got {n}")
        return n

    def rounds(self) -> list[dict]:
        for k, rec in enumerate(self.data["round_records"]):
            if not isinstance(rec, dict):
                raise self.fail(f"round_records[{k}]", "expected an object")
        return self.data["round_records"]

    def field(self, rec: dict, k: int, key: str) -> Any:
        if key not in rec:
            raise self.fail(f"round_records[{k - 1}].{key}", "missing key")
        return rec[key]

    def row(self, rec: dict, k: int, key: str, length: int, convert: Callable[[Any], Any]) -> list:
        """A per-seat list of `length` values, each converted (ValueError/TypeError/KeyError -> error)."""
        values = self.field(rec, k, key)
        if not isinstance(values, list) or len(values) != length:
            got = len(values) if isinstance(values, list) else type(values).__name__
            raise self.fail(f"round_records[{k - 1}].{key}", f"expected {length} entries, got {got}")
        out = []
        for i, v in enumerate(values):
            try:
                out.append(convert(v))
            except (TypeError, ValueError, KeyError):
                raise self.fail(f"round_records[{k - 1}].{key}[{i}]", f"unreadable value {v!r}") from None
        return out


def _number(v: Any) -> float:
    if isinstance(v, bool):
        raise ValueError(v)
    x = float(v)
    return int(x) if x.is_integer() else x


class _Simultaneous:
    """Games where every seat acts at once and round_records[k].responses holds the actions."""

    def __init__(self, params: Callable[[RunFile], tuple[dict, dict]], convert: Callable[[Any], Any]):
        self._params, self.convert = params, convert

    def params(self, run):
        return self._params(run)

    def replay(self, run, game, k, rec):
        actions = run.row(rec, k, "responses", game.n, self.convert)
        game.play_round(k, lambda d: actions[d.seat])

    def finish(self, run):
        return None

    def actions(self, rec):
        return {"responses": rec.get("responses")}


class _Counted(_Simultaneous):
    """A two-word game scored by counting one word, as the official `responses.count(word)`: any other
    answer counts as the other choice (recorded per file: each answer, how often, read as what)."""

    def __init__(self, params, counted: str, other: str, counted_action: bool):
        super().__init__(params, str)
        self.counted, self.other, self.counted_action = counted, other, counted_action

    def replay(self, run, game, k, rec):
        words = run.row(rec, k, "responses", game.n, lambda v: str(v).lower())
        run.odd_answers.update(w for w in words if w not in (self.counted, self.other))
        actions = [(w == self.counted) == self.counted_action for w in words]
        game.play_round(k, lambda d: actions[d.seat])

    def finish(self, run):
        for word, count in sorted(run.odd_answers.items()):
            run.bend("answers", f"{word!r} x{count} counted as {self.other} (the official score counts only "
                                f"{self.counted!r} as {self.counted})")


def _bar_params(run):
    if "mode" in run.meta:
        mode = run.get("mode", str)
    else:
        hinted = [m for m in ("implicit", "explicit") if m in f"{run.path.parent.name}/{run.path.name}"]
        mode = hinted[-1] if hinted else "implicit"
        run.bend("meta", f"'mode' missing; {mode!r} from " + ("the file's path" if hinted else "the official default"))
    if mode not in ("implicit", "explicit"):
        raise run.fail("meta.mode", f"expected implicit or explicit, got {mode!r}")
    p = {"capacity": run.get("ratio"), "go_payoff": run.get("max"), "home_payoff": run.get("home"),
         "crowded_payoff": run.get("min"), "mode": mode}
    return p, ({"mode": mode} if mode != "implicit" else {})


class _Auction:
    def params(self, run):
        mode = run.get("mode", str)
        price = {"highest bid": "first", "second highest bid": "second"}.get(mode)
        if price is None:
            raise run.fail("meta.mode", f"expected 'highest bid' or 'second highest bid', got {mode!r}")
        p = {"vmin": run.get("valuation_min", int), "vmax": run.get("valuation_max", int),
             "step": run.get("interval", int), "price": price}
        return p, ({"price": price} if price != "first" else {})

    def replay(self, run, game, k, rec):
        values = run.row(rec, k, "valuations", game.n, _number)
        bids = run.row(rec, k, "responses", game.n, _number)
        winner = str(rec.get("bid_winner", ""))
        seat = int(winner.split("_")[-1]) if re.fullmatch(r"player_\d+", winner) else None
        game.settle(k, values, bids, seat)

    def finish(self, run):
        return None

    def actions(self, rec):
        return {"responses": rec.get("responses"), "valuations": rec.get("valuations")}


class _Battle:
    def params(self, run):
        return {"hit_base": run.get("base_hit_rate"), "hit_step": run.get("interval")}, {}

    def replay(self, run, game, k, rec):
        key = f"round_records[{k - 1}]"
        try:
            shooter = int(run.field(rec, k, "player_shooting"))
        except (TypeError, ValueError):
            raise run.fail(f"{key}.player_shooting", f"expected a seat number, got {rec['player_shooting']!r}") \
                from None
        alive = run.field(rec, k, "initial_players")
        try:
            game.alive = sorted(int(str(name).split("_")[-1]) for name, _rate in alive)
        except (TypeError, ValueError):
            raise run.fail(f"{key}.initial_players", "expected [player_<i>, hit rate] pairs") from None
        shot = str(run.field(rec, k, "shot_player")).strip().lower()
        # the official game: a target containing "-1", or "null", is an intentional miss
        missed = rec.get("action") == "miss" or shot in ("null", "none", "") or "-1" in shot
        target = None if missed else shot.split("_")[-1]
        if target is not None and not target.isdigit():
            raise run.fail(f"{key}.shot_player", f"expected a seat number or null, got {shot!r}")
        target = None if target is None else int(target)
        hit = bool(run.field(rec, k, "out"))
        if shooter not in game.alive:
            run.bend("shot", f"{key}: player_{shooter} shoots but is not among initial_players; read as recorded")
        if target is not None and target == shooter:
            run.bend("shot", f"{key}: player_{shooter} shot at itself: a turn not aimed at the strongest"
                             + ("; the hit puts it out, as in the official game" if hit else ""))
        elif target is not None and target not in game.alive:
            run.bend("shot", f"{key}: player_{shooter} shot at player_{target}, who is already out: a turn not "
                             "aimed at the strongest (the official analysis does not count it)")
            hit = False
        game.resolve(k, shooter, target, hit)

    def finish(self, run):
        return None

    def actions(self, rec):
        return {key: rec.get(key) for key in ("player_shooting", "shot_player", "out")}


VOTES = {"accept": True, "reject": False}


class _Pirate:
    """The official score counts a vote right only when it is exactly 'accept' or 'reject' as the offer asks,
    and the plan passes on the 'accept' votes; any other answer is neither (recorded)."""

    def params(self, run):
        return {"golds": run.get("gold", int)}, {}

    def replay(self, run, game, k, rec):
        aboard = len(game.aboard)
        plan = run.row(rec, k, "gold_distribution", aboard, _number)
        words = run.row(rec, k, "responses", aboard, lambda v: str(v).lower())
        votes = [VOTES.get(w) for w in words]
        run.odd_answers.update(w for w in words if w not in VOTES)
        first = game.first

        def ask(d: Decision):
            return plan if d.kind == "propose" else votes[d.seat - first]

        game.play_round(k, ask)

    def finish(self, run):
        for word, count in sorted(run.odd_answers.items()):
            run.bend("answers", f"{word!r} x{count} read as neither accept nor reject: not a vote for the plan "
                                "and never a correct vote (the official count)")

    def actions(self, rec):
        return {"gold_distribution": rec.get("gold_distribution"), "responses": rec.get("responses")}


READERS: dict[str, Any] = {
    "guess": _Simultaneous(lambda r: ({"min": r.get("min", int), "max": r.get("max", int),
                                       "ratio": r.get("ratio")}, {}), _number),
    "bar": _Counted(_bar_params, "go", "stay", True),
    "dollar": _Simultaneous(lambda r: ({"golds": r.get("golds", int)}, {}), _number),
    "goods": _Simultaneous(lambda r: ({"tokens": r.get("tokens", int), "multiplier": r.get("ratio")}, {}),
                           _number),
    "diner": _Counted(lambda r: ({"cheap_cost": r.get("cheap_cost"), "cheap_utility": r.get("cheap_utility"),
                                 "costly_cost": r.get("exp_cost"), "costly_utility": r.get("exp_utility")}, {}),
                      "cheap", "costly", False),
    "auction": _Auction(),
    "battle": _Battle(),
    "pirate": _Pirate(),
}


def replay_all(run: RunFile, game: Game, rounds: list[dict]) -> None:
    """Replay every recorded round through the game's rules, then note what the reader bent."""
    reader = READERS[run.game]
    for k, rec in enumerate(rounds, start=1):
        if game.finished:
            raise BadRunFile(f"{run.path}: round_records[{k - 1}]: a round after the game had ended")
        reader.replay(run, game, k, rec)
    reader.finish(run)
