"""The eight games of GAMA(γ)-Bench, by command-line name, in the paper's order."""

from __future__ import annotations

from toolkit.core.errors import InputError
from toolkit.gama.games.auction import Auction
from toolkit.gama.games.bar import Bar
from toolkit.gama.games.base import STRATEGIES, Decision, Game, Param, parse_number
from toolkit.gama.games.battle import Battle
from toolkit.gama.games.diner import Diner
from toolkit.gama.games.dollar import Dollar
from toolkit.gama.games.goods import Goods
from toolkit.gama.games.guess import Guess
from toolkit.gama.games.pirate import Pirate

GAMES: dict[str, type[Game]] = {g.NAME: g for g in (Guess, Bar, Dollar, Goods, Diner, Auction, Battle, Pirate)}


def game_class(name: str) -> type[Game]:
    try:
        return GAMES[name]
    except KeyError:
        raise InputError(f"unknown game {name!r}; expected one of: {', '.join(GAMES)}") from None


def parse_params(name: str, pairs: list[str] | dict) -> dict[str, float]:
    """KEY=VALUE strings (or a dict) checked against the game's parameters; values as numbers."""
    cls = game_class(name)
    items = pairs.items() if isinstance(pairs, dict) else [_split(p) for p in pairs]
    out = {}
    for key, value in items:
        key = key.replace("-", "_")
        if key not in cls.PARAMS:
            raise InputError(f"{name}: unknown parameter {key!r}; parameters: {', '.join(cls.PARAMS)}")
        spec = cls.PARAMS[key]
        if spec.kind is str:
            if str(value) not in spec.choices:
                raise InputError(f"{name}: parameter {key!r} must be one of {', '.join(spec.choices)}, got {value!r}")
            out[key] = str(value)
            continue
        number = parse_number(value) if isinstance(value, str) else float(value)
        if cls.PARAMS[key].kind is int and not float(number).is_integer():
            raise InputError(f"{name}: parameter {key!r} must be a whole number, got {value}")
        out[key] = cls.PARAMS[key].kind(number)
    return out


def _split(pair: str) -> tuple[str, str]:
    key, sep, value = pair.partition("=")
    if not sep or not key.strip():
        raise InputError(f"--param {pair!r}: expected KEY=VALUE")
    return key.strip(), value.strip()


__all__ = ["GAMES", "STRATEGIES", "Decision", "Game", "Param", "game_class", "parse_params"]
