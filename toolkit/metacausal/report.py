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
