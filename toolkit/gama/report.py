"""Leaderboard tables and per-round trajectory plots from `gama.result` records."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from toolkit.gama.games import GAMES

OFFICIAL_RUNS = 5  # runs per game behind each published leaderboard score

SHORT = {"guess": "Guessing", "bar": "Bar", "dollar": "Dollar", "goods": "Goods", "diner": "Diner",
         "auction": "Auction", "battle": "Battle", "pirate": "Pirate"}


def row_label(summary: dict) -> str:
    variant = summary.get("variant", "default")
    return summary["players"] if variant == "default" else f"{summary['players']} [{variant}]"


def leaderboard_table(summaries: list[dict]):
    """A rich Table like the paper's: one row per player spec (and variant), sorted by overall score."""
    from rich.table import Table

    games = [g for g in GAMES if any(g in s["games"] for s in summaries)]
    table = Table(title="GAMA(γ)-Bench scores (0-100, mean over runs)")
    table.add_column("players", overflow="fold")
    table.add_column("Overall", justify="right")
    for g in games:
        table.add_column(SHORT[g], justify="right")

    def order(s):
        return -(s["overall"] if s["overall"] is not None else np.mean(list(s["games"].values())))

    flag = any(s.get("substituted_runs") for s in summaries)
    if flag:
        table.add_column("runs with substitutions", justify="right")
    table.add_column("runs/game", justify="right")
    for s in sorted(summaries, key=order):
        overall = f"{s['overall']:.1f}" if s["overall"] is not None else "-"
        runs = s.get("runs", {})
        usual = max(runs.values(), default=0)
        cells = [_cell(s["games"][g], runs.get(g, usual), usual) if g in s["games"] else "-" for g in games]
        counts = sorted(set(runs.values()))
        span = str(usual) if len(counts) <= 1 else f"{counts[0]}-{counts[-1]}"
        table.add_row(row_label(s), overall, *cells, *([str(s.get("substituted_runs", 0))] if flag else []), span)
    return table


def _cell(score: float, runs: int, usual: int) -> str:
    """A score, with its number of runs when that differs from the row's other games."""
    return f"{score:.1f}" if runs == usual else f"{score:.1f} ({runs})"


def few_runs_note(summaries: list[dict], official: int = OFFICIAL_RUNS) -> str | None:
    """A warning naming the games scored from fewer runs than the official 5, or None."""
    short = []
    for s in summaries:
        few = [f"{SHORT[g]} {n}" for g, n in s.get("runs", {}).items() if n < official]
        if few:
            short.append(f"{row_label(s)}: {', '.join(few)}")
    if not short:
        return None
    more = f" and {len(short) - 5} more rows" if len(short) > 5 else ""
    return (f"fewer runs than the official {official} behind some scores (runs per game): "
            + "; ".join(short[:5]) + more)


def normalised_note(results: list[dict]) -> str | None:
    """How many imported runs were read with the official analysis's tolerance, or None."""
    bent = [r for r in results if r.get("normalised")]
    if not bent:
        return None
    return (f"{len(bent)} of {len(results)} runs were imported with normalisations (read the way the official "
            "analysis reads them); see each record's 'normalised' field")


def substitution_note(results: list[dict]) -> str | None:
    """A warning naming the runs that played random actions for unreadable LLM answers, or None."""
    from toolkit.gama.plan import has_substitutions

    flagged = [r for r in results if has_substitutions(r)]
    if not flagged:
        return None
    shown = ", ".join(f"{r['game']} run {r['run']} ({r['players']}; per seat {r.get('substituted') or r['invalid']})"
                      for r in flagged[:5])
    more = f" and {len(flagged) - 5} more" if len(flagged) > 5 else ""
    return (f"{len(flagged)} of {len(results)} runs include actions substituted at random for unreadable LLM "
            f"answers: {shown}{more}")


def plot_trajectories(results: list[dict], out_dir: Path) -> list[Path]:
    """One PNG per game: each trajectory metric per round, averaged over runs, one line per player spec."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    grouped: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for r in results:
        label = r["players"] if r.get("variant", "default") == "default" else f"{r['players']} [{r['variant']}]"
        grouped[r["game"]][label].append(r["trajectory"])
    written = []
    for game in [g for g in GAMES if g in grouped]:
        metrics = list(next(iter(grouped[game].values()))[0])
        fig, axes = plt.subplots(1, len(metrics), figsize=(5.5 * len(metrics), 4), squeeze=False)
        for ax, metric in zip(axes[0], metrics, strict=True):
            for label, trajs in grouped[game].items():
                series = [t[metric] for t in trajs if metric in t]
                longest = max(len(s) for s in series)
                padded = np.full((len(series), longest), np.nan)
                for i, s in enumerate(series):
                    padded[i, : len(s)] = s
                ax.plot(np.arange(1, longest + 1), np.nanmean(padded, axis=0), marker=".", label=label)
            ax.set_xlabel("round")
            ax.set_ylabel(metric.replace("_", " "))
            ax.grid(alpha=0.3)
        axes[0][0].legend(fontsize=8)
        fig.suptitle(GAMES[game].TITLE)
        fig.tight_layout()
        path = out_dir / f"{game}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return written


def seat_table(summaries: list[dict]):
    """For mixed tables: the per-seat-type scores (games with a per-player score), or None if no table is mixed."""
    from rich.table import Table

    mixed = [s for s in summaries if any(len(kinds) > 1 for kinds in s.get("by_player", {}).values())]
    if not mixed:
        return None
    games = [g for g in GAMES if any(g in s["by_player"] for s in mixed)]
    table = Table(title="Mixed tables: mean score of each seat type (games with per-player scores)")
    table.add_column("players")
    table.add_column("seat type")
    for g in games:
        table.add_column(SHORT[g], justify="right")
    for s in mixed:
        kinds = list(dict.fromkeys(k for g in games for k in s["by_player"].get(g, {})))
        for kind in kinds:
            cells = [s["by_player"].get(g, {}).get(kind) for g in games]
            table.add_row(row_label(s), kind, *["-" if c is None else f"{c:.1f}" for c in cells])
    return table


def variant_table(summaries: list[dict]):
    """For sweeps: one row per game and variant with the mean, spread and number of runs."""
    from rich.table import Table

    table = Table(title="GAMA(γ)-Bench sweep: score per game and variant (0-100)")
    for name, justify in (("game", "left"), ("variant", "left"), ("players", "left"), ("mean", "right"),
                          ("std", "right"), ("runs", "right")):
        table.add_column(name, justify=justify, overflow="fold")
    rows = [(g, s) for s in summaries for g in s["games"]]
    rows.sort(key=lambda gs: (list(GAMES).index(gs[0]), gs[1]["variant"], gs[1]["players"]))
    for g, s in rows:
        table.add_row(SHORT[g], s["variant"], s["players"], f"{s['games'][g]:.1f}", f"{s['std'][g]:.1f}",
                      str(s["runs"][g]))
    return table
