"""gama.result / gama.round / gama.summary: per game the seats' actions per round, scores and a leaderboard."""

from __future__ import annotations

from collections import defaultdict
from statistics import fmean
from typing import Any

from toolkit.view.model import Context, Family, Filter, Item, Rec, Section
from toolkit.view.svg import Series, line_chart

# The outcome field that holds one action per seat, per game (bar and diner: booleans, drawn as 0/1).
ACTION_KEYS = ("choices", "bids", "contributions", "claims", "go", "costly")


def run_key(rec: dict) -> tuple:
    return tuple(str(rec.get(k)) for k in ("game", "variant", "players", "run", "seed"))


def seat_actions(outcome: dict, n: int) -> tuple[str, list[float | None]] | None:
    """(field name, one number per seat) from a round's outcome; payoffs when the game has no per-seat action."""
    keys = [k for k in ACTION_KEYS if k in outcome]
    keys += [k for k, v in outcome.items() if k not in keys and k != "payoffs" and isinstance(v, list)]
    for key in [*keys, "payoffs"]:
        value = outcome.get(key)
        if isinstance(value, list) and len(value) == n and all(isinstance(x, int | float | None) for x in value):
            return key, [None if x is None else float(x) for x in value]
    return None


def actions_chart(result: dict, rounds: list[dict]) -> Any:
    seats = result.get("seats") or []
    n = int(result.get("n_players") or len(seats))
    per_seat: list[list[float | None]] = [[] for _ in range(n)]
    xs: list[float] = []
    field = None
    for r in sorted(rounds, key=lambda r: r.get("round", 0)):
        got = seat_actions(r.get("outcome") or {}, n)
        if got is None:
            continue
        field = got[0]
        xs.append(float(r.get("round", len(xs) + 1)))
        for i, v in enumerate(got[1]):
            per_seat[i].append(v)
    if not xs:
        return None
    series = [Series(f"{i}: {seats[i] if i < len(seats) else 'seat'}", xs, ys) for i, ys in enumerate(per_seat)]
    return line_chart(series, title=f"{result.get('title') or result.get('game')}: {field} per round",
                      x_label="round", y_label=str(field))


def leaderboard(results: list[dict], summaries: list[dict]) -> tuple[list[str], list[dict]]:
    """Rows of (players, per-game score, overall): a gama.summary record where one exists for those players,
    else the mean over their result runs (overall = the mean over games, as the benchmark reports it)."""
    rows = [{"players": s.get("players"), "games": s.get("games") or {}, "overall": s.get("overall")}
            for s in summaries]
    summarised = {s.get("players") for s in summaries}
    by: dict[Any, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in results:
        if isinstance(r.get("score"), int | float) and r.get("players") not in summarised:
            by[r.get("players")][str(r.get("game"))].append(float(r["score"]))
    for players, games in by.items():
        means = {g: fmean(v) for g, v in games.items()}
        rows.append({"players": players, "games": means, "overall": fmean(means.values())})
    rows.sort(key=lambda r: -(r["overall"] if isinstance(r["overall"], int | float) else float("-inf")))
    games = sorted({g for r in rows for g in r["games"]})
    return games, rows


def build(ctx: Context, records: dict[str, list[Rec]]) -> list[Section]:
    results = [r.data for r in records.get("gama.result", [])]
    rounds: dict[tuple, list[dict]] = defaultdict(list)
    for r in records.get("gama.round", []):
        rounds[run_key(r.data)].append(r.data)
    items = []
    for res in results:
        chart = actions_chart(res, rounds.get(run_key(res), []))
        html = ctx.render("gama_result.html.j2", res=res, chart=chart, rounds=len(rounds.get(run_key(res), [])))
        items.append(Item(html, {"game": str(res.get("game")), "players": str(res.get("players"))}))
    games, rows = leaderboard(results, [r.data for r in records.get("gama.summary", [])])
    header = ctx.render("gama_header.html.j2", games=games, rows=rows)
    filters = [Filter("game", "game", sorted({i.attrs["game"] for i in items})),
               Filter("players", "players", sorted({i.attrs["players"] for i in items}))]
    counts = {k: len(v) for k, v in records.items()}
    return [Section("gama", "games", counts, items, header=header, filters=filters)]


FAMILY = Family("gama", "games", ("gama.result", "gama.round", "gama.summary"), build)
