"""The run summary printed on stderr: episodes, failures by mode, sub-task that failed, seconds."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from rich.table import Table

from toolkit.core import console
from toolkit.failgen.modes import MODES, NOMINAL


def summary_rows(summary) -> dict:
    """Counts per task and per mode (also used by the benchmark and tests)."""
    by_task: dict[str, dict] = defaultdict(lambda: {"jobs": 0, "kept": 0, "nominal": 0, "nominal_ok": 0,
                                                    "failures": 0, "no_effect": 0, "samples": 0, "seconds": 0.0})
    by_mode: dict[str, dict[str, str]] = defaultdict(dict)
    for r in summary.results:
        row = by_task[r.job.task]
        row["jobs"] += 1
        row["seconds"] += r.seconds
        row["samples"] += len(r.samples)
        if r.job.mode == NOMINAL:
            row["nominal"] += 1
            row["nominal_ok"] += int(r.kept)
        elif r.kept:
            row["failures"] += 1
        else:
            row["no_effect"] += 1
        row["kept"] += int(r.kept)
        cell = by_mode[r.job.mode].get(r.job.task, "")
        by_mode[r.job.mode][r.job.task] = cell + ("✓" if r.kept else "·")
    return {"tasks": dict(by_task), "modes": dict(by_mode)}


def show_summary(summary, out_dir: Path, seconds: float) -> None:
    rows = summary_rows(summary)
    tasks = list(rows["tasks"])
    table = Table(title=f"failgen → {out_dir}", title_justify="left")
    for col in ("task", "episodes", "nominal ok", "failures kept", "no effect", "samples", "sim+render s"):
        table.add_column(col, justify="right" if col != "task" else "left")
    for t, row in rows["tasks"].items():
        table.add_row(t, str(row["kept"]), f"{row['nominal_ok']}/{row['nominal']}", str(row["failures"]),
                      str(row["no_effect"]), str(row["samples"]), f"{row['seconds']:.1f}")
    console.console.print(table)
    if len(tasks) == 1:
        detail = Table(title="failures by mode", title_justify="left")
        for col in ("mode", "kept", "failed sub-task (first kept)", "AHA answer (first kept)", "tries", "s/ep"):
            detail.add_column(col, justify="right" if col in ("kept", "tries", "s/ep") else "left")
        groups: dict[str, list] = {}
        for r in summary.results:
            if r.job.mode != NOMINAL:
                groups.setdefault(r.job.mode, []).append(r)
        for mode, rs in groups.items():
            first = next((r for r in rs if r.kept), None)
            answer = first.samples[-1]["answer"] if first and first.samples else "-"
            detail.add_row(mode, f"{sum(r.kept for r in rs)}/{len(rs)}", (first.failed_subtask or "-") if first else
                           "no effect", answer, f"{sum(r.attempts for r in rs) / len(rs):.1f}",
                           f"{sum(r.seconds for r in rs) / len(rs):.1f}")
        if detail.row_count:
            console.console.print(detail)
    else:
        grid = Table(title="failures by mode (✓ kept, · no effect)", title_justify="left")
        grid.add_column("mode")
        for t in tasks:
            grid.add_column(t)
        for mode in MODES:
            if mode in rows["modes"]:
                grid.add_row(mode, *(rows["modes"][mode].get(t, "-") for t in tasks))
        console.console.print(grid)
    for r in summary.results:
        if not r.kept:
            what = "nominal demo failed its success check" if r.job.mode == NOMINAL else (
                f"mode had no effect here after {r.attempts} attempts")
            console.warn(f"{r.job.task} seed {r.job.seed} {r.job.mode}: {what}; no episode written")
    kept = sum(r["kept"] for r in rows["tasks"].values())
    samples = sum(r["samples"] for r in rows["tasks"].values())
    extra = f", {summary.skipped_done} already done" if summary.skipped_done else ""
    console.info(f"{kept} episodes, {samples} samples in {seconds:.1f} s{extra} → {out_dir}/episodes.jsonl, "
                 f"{out_dir}/samples.jsonl")
