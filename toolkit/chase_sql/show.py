"""Human-readable output on stderr: the chosen SQL with its result table, and evaluation summaries."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from toolkit.chase_sql.executor import ExecResult
from toolkit.core.console import console


def show_answer(record: dict[str, Any], result: ExecResult, max_rows: int = 20) -> None:
    console.print(f"[bold]SQL[/bold] ({record['comparisons']} comparisons, {len(record['candidates'])} candidates): "
                  f"{record['sql']}", highlight=False)
    if record.get("sql_dialect"):
        console.print(f"[bold]{record['dialect']}[/bold]: {record['sql_dialect']}", highlight=False)
    if result.error is not None:
        console.print(f"[red]error:[/red] {result.error}", highlight=False)
        return
    table = Table(*result.columns)
    for row in result.rows[:max_rows]:
        table.add_row(*("NULL" if v is None else str(v) for v in row))
    console.print(table)
    if len(result.rows) > max_rows:
        console.print(f"... {len(result.rows)} rows")


def show_summary(summary: dict[str, Any]) -> None:
    table = Table("metric", "value", title=f"{summary['metric'].upper()} execution accuracy (%), n={summary['n']}")
    for key in ("ex", "oracle", "self_consistency", "selector_accuracy_on_mixed"):
        table.add_row(key, str(summary.get(key)))
    for level, v in summary.get("by_difficulty", {}).items():
        table.add_row(f"ex {level} (n={v['n']})", str(v["ex"]))
    for gen, v in summary.get("generator_candidate_ex", {}).items():
        table.add_row(f"candidates {gen}", str(v))
    console.print(table)
