"""Bench and sweep plans (lists of Jobs) and the summaries computed from their results."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

import numpy as np

from toolkit.core.errors import InputError
from toolkit.core.records import make_record
from toolkit.gama.engine import SCHEMA, Job
from toolkit.gama.games import GAMES, game_class, parse_params

# Generalizability variants used by `sweep --preset generalizability` (ours, after the paper's idea of
# re-running each game with changed parameters; the paper's variants include ratio 1/2 and capacity 40%).
GENERALIZABILITY = {
    "guess": [{"ratio": 0.5}, {"ratio": 2 / 3}, {"ratio": 4 / 3}, {"max": 200}],
    "bar": [{"capacity": 0.4}, {"capacity": 0.6}, {"capacity": 0.8}],
    "dollar": [{"golds": 50}, {"golds": 100}, {"golds": 200}],
    "goods": [{"multiplier": 1.5}, {"multiplier": 2}, {"multiplier": 4}],
    "diner": [{"costly_cost": 20, "costly_utility": 20}, {"costly_cost": 30, "costly_utility": 20}],
    "auction": [{"vmax": 100}, {"vmax": 200}],
    "battle": [{"hit_base": 35, "hit_step": 5}, {"hit_base": 50, "hit_step": 5}],
    "pirate": [{"golds": 100}, {"golds": 20}],
}


def games_list(text: str | None) -> list[str]:
    if not text or text == "all":
        return list(GAMES)
    names = [g.strip() for g in text.split(",") if g.strip()]
    for name in names:
        game_class(name)
    return names


def bench_jobs(template: Job, games: list[str], runs: int, params: dict[str, dict]) -> list[Job]:
    return [replace(template, game=g, run=r, params=params.get(g, {})) for g in games for r in range(runs)]


def variant_label(params: dict, temperature: float | None, seed: int | None) -> str:
    parts = [f"{k}={v}" if isinstance(v, str) else f"{k}={v:g}" for k, v in sorted(params.items())]
    if temperature is not None:
        parts.append(f"T={temperature:g}")
    if seed is not None:
        parts.append(f"seed={seed}")
    return ",".join(parts) or "default"


def sweep_jobs(template: Job, games: list[str], runs: int, seeds: list[int], temperatures: list[float] | None,
               variations: dict[str, list[dict]]) -> list[Job]:
    """Robustness (seeds x temperatures) times generalizability (parameter variants per game)."""
    jobs = []
    for game in games:
        for params in variations.get(game) or [{}]:
            params = parse_params(game, params)
            for temp in temperatures or [None]:
                for seed in seeds:
                    llm = template.llm if temp is None else replace(template.llm, temperature=temp)
                    label = variant_label(params, temp, seed if len(seeds) > 1 else None)
                    for run in range(runs):
                        jobs.append(replace(template, game=game, params=params, seed=seed, llm=llm, run=run,
                                            variant=label))
    return jobs


def parse_vary(items: list[str]) -> dict[str, list[dict]]:
    """'guess:ratio=1/2,max=50' -> {'guess': [{'ratio': '1/2', 'max': '50'}]} (repeatable)."""
    out: dict[str, list[dict]] = defaultdict(list)
    for item in items:
        game, sep, rest = item.partition(":")
        if not sep:
            raise InputError(f"--vary {item!r}: expected GAME:KEY=VALUE[,KEY=VALUE]")
        pairs = [p for p in rest.split(",") if p.strip()]
        out[game.strip()].append(parse_params(game.strip(), pairs))
    return dict(out)


def summarize(results: list[dict], group: tuple[str, ...] = ("players", "variant")) -> list[dict]:
    """Per (group, game): mean and std of the score over runs; per group: the overall mean of game means."""
    table: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    seats: dict[tuple, dict[str, dict[str, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    flagged: dict[tuple, int] = defaultdict(int)
    bent: dict[tuple, int] = {}  # imported groups only: runs read with the official tolerance
    for r in results:
        key = tuple(r[g] for g in group)
        table[key][r["game"]].append(r["score"])
        flagged[key] += has_substitutions(r)
        if "normalised" in r:
            bent[key] = bent.get(key, 0) + bool(r["normalised"])
        for kind, value in (r.get("by_player") or {}).items():
            if value is not None:
                seats[key][r["game"]][kind].append(value)
    out = []
    for key, games in table.items():
        games = {g: games[g] for g in GAMES if g in games}  # the official column order
        per_game = {g: float(np.mean(v)) for g, v in games.items()}
        spread = {g: float(np.std(v)) for g, v in games.items()}
        runs = {g: len(v) for g, v in games.items()}
        complete = all(g in per_game for g in GAMES)
        out.append(make_record("gama.summary", SCHEMA, **dict(zip(group, key, strict=True)), games=per_game,
                               std=spread, runs=runs,
                               by_player={g: {k: float(np.mean(v)) for k, v in kinds.items()}
                                          for g, kinds in seats[key].items()},
                               overall=float(np.mean(list(per_game.values()))) if complete else None,
                               substituted_runs=flagged[key],
                               **({"normalised_runs": bent[key]} if key in bent else {})))
    return out


def has_substitutions(result: dict) -> bool:
    """Whether a run played any random action in place of an unreadable LLM answer."""
    return bool(sum(result.get("substituted") or []) or result.get("invalid", 0))
