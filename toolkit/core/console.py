"""Everything meant for humans goes to stderr through one rich console."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import TypeVar

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from toolkit.core.tables import FittingConsole

# emoji off: messages quote user data (paths, specs, SQL), where ":name:" must stay as typed; tables are laid
# out to the terminal's width without cutting a header or a name (toolkit/core/tables.py)
console = FittingConsole(stderr=True, emoji=False)
_state = {"quiet": False}

T = TypeVar("T")


def set_quiet(quiet: bool) -> None:
    _state["quiet"] = quiet
    console.quiet = quiet


def is_quiet() -> bool:
    return _state["quiet"]


def info(message: str) -> None:
    console.print(message)


def warn(message: str) -> None:
    # The message may quote input data (file names, bad lines): never read it as rich markup.
    console.print(f"[yellow]warning:[/yellow] {escape(message)}", soft_wrap=True)


@contextlib.contextmanager
def progress_bar(total: int | None, description: str) -> Iterator[callable]:
    """Yield an `advance(n=1)` callable; the bar is drawn on stderr only when it is a terminal."""
    if _state["quiet"] or not console.is_terminal:
        yield lambda n=1: None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(description, total=total)
        yield lambda n=1: progress.advance(task, n)


def track(items: Iterable[T], total: int | None, description: str) -> Iterator[T]:
    with progress_bar(total, description) as advance:
        for item in items:
            yield item
            advance()
