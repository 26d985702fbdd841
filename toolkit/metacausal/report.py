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
    """(settings, problem records, confusion records) of a protocol file."""
    from toolkit.core.records import read_records

    settings, problems, confusions = None, [], []
    for record in read_records(path, skip_bad=True):
        kind = record.get("type")
        if kind == "metacausal.protocol" and settings is None:
            settings = record.get("settings")
        elif kind == "metacausal.problem":
            problems.append(record)
        elif kind == "metacausal.confusion":
            confusions.append(record)
    return settings, problems, confusions


def markdown(summary: dict, official: dict | None = None) -> str:
    """A Markdown confusion table; with `official`, its counts are shown beside ours as ours (official)."""
    kmax = max(len(row) for row in summary["matrix"].values()) - 1
    head = "| true K | " + " | ".join(f"K-hat={j}" for j in range(kmax + 1)) + " | params within 0.2 | direction |"
    lines = [head, "|" + "---|" * (kmax + 4)]
    for k, row in summary["matrix"].items():
        ref = (official or {}).get(k)
        cells = [f"{v} ({ref[j]})" if ref else str(v) for j, v in enumerate(row)]
        pr, da = summary["param_recovery"].get(k), summary["direction_accuracy"].get(k)
        lines.append(f"| {k} ({sum(row)}) | " + " | ".join(cells) +
                     f" | {'-' if pr is None else f'{pr:.2f}'} | {'-' if da is None else f'{da:.2f}'} |")
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
