"""Confusion matrices as rich tables (stderr), Markdown and PNG."""

from __future__ import annotations

from rich.table import Table

from toolkit.core import console


def show_confusions(summaries: list[dict]) -> None:
    for s in summaries:
        kmax = max(len(row) for row in s["matrix"].values()) - 1
        table = Table(title=f"K-hat under --select {s['select']}")
        table.add_column("true K")
        for j in range(kmax + 1):
            table.add_column(f"K-hat={j}", justify="right")
        table.add_column("params within 0.2", justify="right")
        table.add_column("direction right", justify="right")
        for k, row in s["matrix"].items():
            pr, da = s["param_recovery"].get(k), s["direction_accuracy"].get(k)
            table.add_row(k, *[str(v) for v in row], "-" if pr is None else f"{pr:.2f}",
                          "-" if da is None else f"{da:.2f}")
        console.console.print(table)


def load_protocol(path) -> tuple[dict | None, list[dict], list[dict]]:
    """(settings, problem records, confusion records) of a protocol file; problem records of an older file are
    upgraded to the official `ad` rule, and an error names those that need running again."""
    from toolkit.core.errors import InputError
    from toolkit.core.records import read_records
    from toolkit.metacausal.protocol import upgrade_problem

    settings, problems, confusions, stale = None, [], [], []
    for record in read_records(path, skip_bad=True):
        kind = record.get("type")
        if kind == "metacausal.protocol" and settings is None:
            settings = record.get("settings")
        elif kind == "metacausal.problem":
            upgraded = upgrade_problem(record)
            if upgraded is None:
                stale.append(f"K={record.get('k')} problem {record.get('problem')}")
            else:
                problems.append(upgraded)
        elif kind == "metacausal.confusion":
            confusions.append(record)
    if stale:
        more = ", ..." if len(stale) > 3 else ""
        raise InputError(f"{path}: {len(stale)} problem records ({', '.join(stale[:3])}{more}) "
                         "were written when `ad` chose the lowest mean A^2 and that rule's choice differs from the "
                         "official one; `reason metacausal protocol ... --resume -o` with this file re-runs them")
    return settings, problems, confusions


def markdown(summary: dict, official: dict | None = None) -> str:
    """A Markdown confusion table; with `official`, its counts are shown beside ours as ours (official)."""
    kmax = max(len(row) for row in summary["matrix"].values()) - 1
    head = ("| true K | " + " | ".join(f"K-hat={j}" for j in range(kmax + 1)) +
            " | correct (95% CI) | params within 0.2 | direction |")
    lines = [head, "|" + "---|" * (kmax + 5)]
    for k, row in summary["matrix"].items():
        ref = (official or {}).get(k)
        cells = [f"{v} ({ref[j]})" if ref else str(v) for j, v in enumerate(row)]
        pr, da = summary["param_recovery"].get(k), summary["direction_accuracy"].get(k)
        ci = (summary.get("correct_ci95") or {}).get(k)
        share = f"{row[int(k)] / max(sum(row), 1):.0%}" + (f" ({ci[0]:.0%}-{ci[1]:.0%})" if ci else "")
        lines.append(f"| {k} ({sum(row)}) | " + " | ".join(cells) + f" | {share}" +
                     f" | {'-' if pr is None else f'{pr:.2f}'} | {'-' if da is None else f'{da:.2f}'} |")
    return "\n".join(lines)


def official_gaps(summary: dict, official: dict) -> list[dict]:
    """Largest |cell difference| between `summary`'s matrix and each published run (and their cell-wise mean),
    over the true K both hold; `official` is official-results.json."""
    runs = {name: run["matrix"] for name, run in official["runs"].items()}
    ks = [k for k in summary["matrix"] if all(k in m for m in runs.values())]
    runs["mean"] = {k: [sum(m[k][j] for m in runs.values()) / len(runs) for j in range(len(summary["matrix"][k]))]
                    for k in ks}
    out = []
    for name, matrix in runs.items():
        gaps = {k: max(abs(a - b) for a, b in zip(summary["matrix"][k], matrix[k], strict=True)) for k in ks}
        out.append({"run": name, "max_gap": round(max(gaps.values()), 2) if gaps else None,
                    "per_k": {k: round(v, 2) for k, v in gaps.items()}})
    return out


def gaps_markdown(summary: dict, gaps: list[dict]) -> str:
    ks = list(gaps[0]["per_k"]) if gaps else []
    lines = [f"Largest |cell difference| of `{summary['select']}` from each published matrix:", "",
             "| published run | " + " | ".join(f"K={k}" for k in ks) + " | all cells |",
             "|" + "---|" * (len(ks) + 2)]
    for g in gaps:
        lines.append(f"| {g['run']} | " + " | ".join(f"{g['per_k'][k]:g}" for k in ks) + f" | {g['max_gap']:g} |")
    return "\n".join(lines)


def plot_confusions(summaries: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, axes = plt.subplots(1, len(summaries), figsize=(3.6 * len(summaries), 3.4), squeeze=False)
    for ax, s in zip(axes[0], summaries, strict=True):
        ks = list(s["matrix"])
        m = np.array([s["matrix"][k] for k in ks], dtype=float)
        shares = m / np.maximum(m.sum(axis=1, keepdims=True), 1)
        ax.imshow(shares, cmap="Blues", vmin=0, vmax=1)
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                ax.text(j, i, int(m[i, j]), ha="center", va="center", fontsize=8,
                        color="white" if shares[i, j] > 0.6 else "black")
        ax.set_xticks(range(m.shape[1]))
        ax.set_yticks(range(len(ks)), ks)
        ax.set_xlabel("K-hat")
        ax.set_ylabel("true K")
        ax.set_title(s["select"])
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
