"""Options and helpers every subcommand shares, so they read and behave the same everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolkit.core import console
from toolkit.core.records import BadLines, RecordWriter

SeedOpt = Annotated[int | None, typer.Option("--seed", help="Random seed (default: the global --seed, 0).")]
OutOpt = Annotated[Path | None, typer.Option("--out", "-o", help="Write records here instead of stdout.")]
ThreadsOpt = Annotated[int, typer.Option("--threads", min=1, help="CPU threads (torch, and BLAS where used).")]
SkipBadOpt = Annotated[bool, typer.Option("--skip-bad", help="Skip malformed input lines, count and report them.")]
ResumeOpt = Annotated[bool, typer.Option("--resume", help="Continue an interrupted run; keep what --out holds.")]
WorkersOpt = Annotated[int, typer.Option("--workers", "-j", min=1, help="Worker processes.")]
RayOpt = Annotated[str | None, typer.Option("--ray", help="Ray cluster address ('local' starts one).")]
LLMOpt = Annotated[str | None, typer.Option(
    "--llm", help="LLM backend URI: openai:MODEL@URL, hf:PATH, replay:FILE, py:MOD:FN (default: $REASON_LLM).")]
RecordOpt = Annotated[Path | None, typer.Option("--record", help="Also record every LLM exchange to this replay file.")]


class State:
    """Global options from the root callback."""

    debug = False
    seed = 0


def seed_or_global(seed: int | None) -> int:
    return State.seed if seed is None else seed


def open_writer(out: Path | None, resume: bool = False) -> RecordWriter:
    return RecordWriter(out, append=resume)


def report_bad(bad: BadLines) -> None:
    message = bad.report()
    if message:
        console.warn(message)


def make_llm(llm: str | None, record: Path | None = None, seed: int | None = None):
    from toolkit.core.llm import from_uri

    return from_uri(llm, record=record, seed=seed)


def report_usage(backend) -> None:
    usage = getattr(backend, "usage", None)
    if usage is not None and usage.calls:
        console.info(usage.summary())
