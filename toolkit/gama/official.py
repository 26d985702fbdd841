"""Read the official GAMA(γ)-Bench run files and score them with this project's games.

The official repository (CUHK-ARISE/GAMABench) keeps one JSON file per run,
`raw_results/<game>/[<mode>/]<model>_<game>_<version>[_<tag>].json`, with keys `meta` (the game's
parameters), `round_records` (every round's actions) and `player_data`. Each file becomes one
`gama.result` record: the recorded actions are replayed through the game's own rules, so the score
is the one `reason gama play` would give for the same actions.

Runs tagged `<version>_<n>` with version v1 are the leaderboard's runs (variant "default"); every
other tag (temperatures, prompts, CoT, ...) becomes its own variant, and so do the explicit bar and
the second-price auction, so that the default rows hold exactly the leaderboard's runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from toolkit.core.errors import InputError
from toolkit.core.records import make_record
from toolkit.gama.engine import RESULT, SCHEMA
from toolkit.gama.games import game_class
from toolkit.gama.games.base import Decision, Game

# The name each game has in the official file names and folders.
OFFICIAL_NAMES = {"guessing_game": "guess", "bar_game": "bar", "divide_dollar": "dollar", "public_goods": "goods",
                  "diner_dilemma": "diner", "sealed_bid_auction": "auction", "battle_royale": "battle",
                  "pirate_game": "pirate"}


class BadRunFile(InputError):
    """A run file that cannot be read as an official run; the message names the file and the key."""


def run_files(folder: Path) -> list[Path]:
    """Every *.json file under `folder`, in a stable order."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of official run files")
    return sorted(p for p in folder.rglob("*.json") if p.is_file())


def import_folder(folder: Path, *, skip_bad: bool = False, on_bad: Callable[[str], None] | None = None,
                  guess_scoring: str = "official", seed: int = 0) -> Iterator[dict]:
    """A `gama.result` record per run file; a bad file raises BadRunFile, or with skip_bad goes to on_bad."""
    files = run_files(folder)
    if not files:
        raise InputError(f"{folder}: no .json run files found")
    for path in files:
        try:
            yield import_file(path, root=Path(folder), guess_scoring=guess_scoring, seed=seed)
        except BadRunFile as exc:
            if not skip_bad:
                raise
            if on_bad is not None:
                on_bad(str(exc))


def import_file(path: Path, root: Path | None = None, guess_scoring: str = "official", seed: int = 0) -> dict:
    """One run file as a `gama.result` record (`seed` only breaks auction ties the file does not settle)."""
    run = _RunFile(path)
    game_name, model, version, tag = run.identity()
    reader = READERS[game_name]
    params, variant_params = reader.params(run)
    if game_name == "guess":
        params["scoring"] = guess_scoring
    n = run.players()
    rounds = run.rounds()
    try:
        game = game_class(game_name)(n, len(rounds), params, np.random.default_rng(seed))
    except InputError as exc:
        raise BadRunFile(f"{path}: meta: {exc}") from None
    for k, rec in enumerate(rounds, start=1):
        if game.finished:
            raise BadRunFile(f"{path}: round_records[{k - 1}]: a round after the game had ended")
        reader.replay(run, game, k, rec)
    scored = game.score()
    default = version == "v1" and tag.isdigit()
    label = ",".join([*(f"{k}={v}" for k, v in variant_params.items()),
                      *([] if default else [f"run={version}{'_' + tag if tag else ''}"])]) or "default"
    seat_scores = [x for x in scored["seat_scores"] or [] if x is not None]
    return make_record(
        RESULT, SCHEMA, game=game_name, variant=label, players=model, run=int(tag) if default else 0, seed=seed,
        title=game.TITLE, n_players=n, rounds=len(rounds), rounds_played=len(game.history), params=dict(game.p),
        seats=[model] * n, score=float(scored["score"]), seat_scores=scored["seat_scores"],
        by_player={model: float(np.mean(seat_scores))} if seat_scores else {},
        payoffs=np.sum([h["payoffs"] for h in game.history], axis=0).tolist() if game.history else [],
        invalid=0, llm_decisions=0, substituted=[0] * n, trajectory=scored["trajectory"],
        actions=[reader.actions(rec) for rec in rounds],
        source={"format": "GAMABench raw_results", "file": str(path.relative_to(root) if root else path),
                "meta": run.meta})


class _RunFile:
    """One official run file, with errors that name the file and the key."""

    def __init__(self, path: Path):
        self.path = path
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

    def fail(self, key: str, what: str) -> BadRunFile:
        return BadRunFile(f"{self.path}: {key}: {what}")

    def identity(self) -> tuple[str, str, str, str]:
        """(game, model, version, tag) from the file name, e.g. llama-3.1-8b_pirate_game_v1_3.json."""
        stem = self.path.stem
        for official, ours in OFFICIAL_NAMES.items():
            at = stem.find(official)
            if at >= 0:
                model = stem[:at].rstrip("_-") or str(self.meta.get("models") or "unknown")
                rest = stem[at + len(official):].lstrip("_")
                rest = re.sub(r"^(implicit|explicit)_?", "", rest)
                version, _, tag = rest.partition("_")
                return ours, model, version or "v1", tag
        raise self.fail("file name", f"unknown game name in {self.path.name!r}; expected one of: "
                                     f"{', '.join(OFFICIAL_NAMES)}")

    def get(self, key: str, kind: type = float, default: Any = None) -> Any:
        """A number (or string) from meta; a missing key without a default is an error."""
        if key not in self.meta:
            if default is not None:
                return default
            raise self.fail(f"meta.{key}", "missing key")
        value = self.meta[key]
        try:
            return kind(value) if kind is not str else str(value)
        except (TypeError, ValueError):
            raise self.fail(f"meta.{key}", f"expected a {kind.__name__}, got {value!r}") from None

    def players(self) -> int:
        if "player_num" in self.meta:
            n = self.get("player_num", int)
        elif isinstance(self.data["player_data"], list):
            n = len(self.data["player_data"])
        else:
            raise self.fail("meta.player_num", "missing key")
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


def _word(options: dict[str, Any]) -> Callable[[Any], Any]:
    return lambda v: options[str(v).strip().lower()]


def _replay(game: Game, k: int, actions: list) -> None:
    """Play round k with the recorded actions (one per seat) through the game's own rules."""
    game.play_round(k, lambda d: actions[d.seat])


class _Simultaneous:
    """Games where every seat acts at once and round_records[k].responses holds the actions."""

    def __init__(self, params: Callable[[_RunFile], tuple[dict, dict]], convert: Callable[[Any], Any]):
        self._params, self.convert = params, convert

    def params(self, run):
        return self._params(run)

    def replay(self, run, game, k, rec):
        _replay(game, k, run.row(rec, k, "responses", game.n, self.convert))

    def actions(self, rec):
        return {"responses": rec.get("responses")}


def _bar_params(run):
    mode = run.get("mode", str, default="implicit" if "implicit" in str(run.path) else
                   ("explicit" if "explicit" in str(run.path) else None))
    if mode not in ("implicit", "explicit"):
        raise run.fail("meta.mode", f"expected implicit or explicit, got {mode!r}")
    p = {"capacity": run.get("ratio"), "go_payoff": run.get("max"), "home_payoff": run.get("home"),
         "crowded_payoff": run.get("min"), "mode": mode}
    return p, ({"mode": mode} if mode != "implicit" else {})


class _Auction:
    def params(self, run):
        mode = run.get("mode", str, default="highest bid")
        price = {"highest bid": "first", "second highest bid": "second"}.get(mode)
        if price is None:
            raise run.fail("meta.mode", f"expected 'highest bid' or 'second highest bid', got {mode!r}")
        p = {"vmin": run.get("valuation_min", int, default=0), "vmax": run.get("valuation_max", int),
             "step": run.get("interval", int, default=1), "price": price}
        return p, ({"price": price} if price != "first" else {})

    def replay(self, run, game, k, rec):
        values = run.row(rec, k, "valuations", game.n, _number)
        bids = run.row(rec, k, "responses", game.n, _number)
        winner = str(rec.get("bid_winner", ""))
        seat = int(winner.split("_")[-1]) if re.fullmatch(r"player_\d+", winner) else None
        game.settle(k, values, bids, seat)

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
        target = None if shot in ("null", "none", "") else shot.split("_")[-1]
        if target is not None and not target.isdigit():
            raise run.fail(f"{key}.shot_player", f"expected a seat number or null, got {shot!r}")
        target = None if target is None else int(target)
        if shooter not in game.alive or (target is not None and (target == shooter or target not in game.alive)):
            raise run.fail(key, f"player_{shooter} shooting at {shot} is not a shot between surviving players")
        game.resolve(k, shooter, target, bool(run.field(rec, k, "out")))

    def actions(self, rec):
        return {key: rec.get(key) for key in ("player_shooting", "shot_player", "out")}


class _Pirate:
    def params(self, run):
        return {"golds": run.get("gold", int)}, {}

    def replay(self, run, game, k, rec):
        aboard = len(game.aboard)
        plan = run.row(rec, k, "gold_distribution", aboard, _number)
        votes = run.row(rec, k, "responses", aboard, _word({"accept": True, "yes": True, "reject": False,
                                                             "no": False}))
        first = game.first

        def ask(d: Decision):
            return plan if d.kind == "propose" else votes[d.seat - first]

        game.play_round(k, ask)

    def actions(self, rec):
        return {"gold_distribution": rec.get("gold_distribution"), "responses": rec.get("responses")}


READERS = {
    "guess": _Simultaneous(lambda r: ({"min": r.get("min", int), "max": r.get("max", int),
                                       "ratio": r.get("ratio")}, {}), _number),
    "bar": _Simultaneous(_bar_params, _word({"go": True, "stay": False})),
    "dollar": _Simultaneous(lambda r: ({"golds": r.get("golds", int)}, {}), _number),
    "goods": _Simultaneous(lambda r: ({"tokens": r.get("tokens", int), "multiplier": r.get("ratio")}, {}),
                           _number),
    "diner": _Simultaneous(lambda r: ({"cheap_cost": r.get("cheap_cost"), "cheap_utility": r.get("cheap_utility"),
                                       "costly_cost": r.get("exp_cost"), "costly_utility": r.get("exp_utility")},
                                      {}), _word({"cheap": False, "costly": True})),
    "auction": _Auction(),
    "battle": _Battle(),
    "pirate": _Pirate(),
}
