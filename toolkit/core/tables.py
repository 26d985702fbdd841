"""Tables that stay readable in a narrow terminal.

rich shrinks a table wider than the terminal by cutting its cells ("Over…") or folding words ("ficti" over
"tious"). `FittedTable` renders a table as it is when every word of its headers and cells comes out whole;
otherwise it splits the columns into several tables stacked one above the other, each repeating the columns
that name a row (the leading left-aligned ones, or as many as `name_columns` says); when even one value column
does not fit beside them, each row becomes a block of "header value" lines. A word wider than the terminal is
folded, never cut. The console wraps every Table it prints in one.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator

from rich.console import Console, ConsoleOptions, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text


def _plain(cell: RenderableType) -> str:
    if isinstance(cell, Text):
        return cell.plain
    if isinstance(cell, str):
        try:
            return Text.from_markup(cell).plain
        except Exception:  # not valid markup: rich prints it as typed
            return cell
    return ""  # a nested renderable: not checked


def _words(table: Table) -> list[str]:
    cells = [c for col in table.columns for c in col._cells]
    if table.show_header:
        cells += [col.header for col in table.columns]
    return [w for c in cells for w in _plain(c).split()]


def _rendered(console: Console, options: ConsoleOptions, renderable: RenderableType) -> list[str]:
    lines = console.render_lines(renderable, options, pad=False)
    return ["".join(seg.text for seg in line) for line in lines]


def is_whole(console: Console, options: ConsoleOptions, table: Table) -> bool:
    """True when every header and cell word of the table appears unbroken in its rendering at options.max_width."""
    lines = _rendered(console, options, table)
    if any(len(line) > options.max_width for line in lines):
        return False
    # a word wider than the terminal cannot come out whole in any layout
    words = {w for w in _words(table) if len(w) <= options.max_width - 4}
    return all(any(w in line for line in lines) for w in words)


def name_columns(table: Table, n: int) -> Table:
    """Say that the first n columns name a row (repeated in every part of a split table); returns the table."""
    table.name_columns = n  # type: ignore[attr-defined]
    return table


def key_columns(table: Table) -> int:
    """The columns that name a row: as set by name_columns, else the leading left-aligned ones (numbers are
    right-aligned); at least one, never all."""
    n = getattr(table, "name_columns", None)
    if n is None:
        n = 0
        for col in table.columns:
            if col.justify != "left":
                break
            n += 1
    return max(1, min(n, len(table.columns) - 1))


def _subtable(table: Table, indices: list[int], title, caption) -> Table:
    part = copy.copy(table)
    part.columns = [dataclasses.replace(table.columns[i], _index=j) for j, i in enumerate(indices)]
    part.title, part.caption = title, caption
    return part


def split_columns(console: Console, options: ConsoleOptions, table: Table) -> list[Table] | None:
    """The table as several narrower ones, each whole at the width, or None when no split makes it whole."""
    keys = list(range(key_columns(table)))
    rest = list(range(len(keys), len(table.columns)))
    if not rest:
        return None
    groups: list[list[int]] = [[]]
    for i in rest:
        trial = groups[-1] + [i]
        if is_whole(console, options, _subtable(table, keys + trial, None, None)):
            groups[-1] = trial
        elif not groups[-1]:
            return None  # this column does not fit beside the row names even alone
        else:
            groups.append([i])
            if not is_whole(console, options, _subtable(table, keys + [i], None, None)):
                return None
    if len(groups) == 1:
        return None
    # as many tables as the greedy packing needs, with the columns shared out evenly when that fits too
    q, r = divmod(len(rest), len(groups))
    bounds = [sum(q + (j < r) for j in range(n)) for n in range(len(groups) + 1)]
    even = [rest[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    if all(is_whole(console, options, _subtable(table, keys + g, None, None)) for g in even):
        groups = even
    title = table.title
    later = f"{title} (continued)" if isinstance(title, str) and title else title
    return [_subtable(table, keys + g, title if n == 0 else later, table.caption if n == len(groups) - 1 else None)
            for n, g in enumerate(groups)]


def vertical(table: Table) -> list[RenderableType]:
    """One block per row: the row's name, then one "header value" line per other column."""
    keys = key_columns(table)
    out: list[RenderableType] = []
    if table.title:
        out.append(Text(_plain(table.title), style="bold"))
    for r in range(table.row_count):
        name = " ".join(_plain(table.columns[c]._cells[r]) for c in range(keys))
        out.append(Text(name, style="bold"))
        grid = Table.grid(padding=(0, 1))
        grid.add_column(justify="left", overflow="fold")
        grid.add_column(justify="left", overflow="fold")
        for col in table.columns[keys:]:
            grid.add_row(Text(_plain(col.header), style="dim"), col._cells[r])
        out.append(grid)
    if table.caption:
        out.append(Text(_plain(table.caption), style="dim"))
    return out


class FittedTable:
    """A rich renderable: the table itself, its columns split into stacked tables, or one block per row."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def layout(self, console: Console, options: ConsoleOptions) -> list[RenderableType]:
        # a word longer than the terminal is folded onto the next line rather than cut
        table = copy.copy(self.table)
        table.columns = [dataclasses.replace(col, overflow="fold") for col in self.table.columns]
        if not table.columns or is_whole(console, options, table):
            return [table]
        parts = split_columns(console, options, table)
        if parts is not None:
            return parts
        # without headers there is nothing to name the lines of a block: rich's own folding is the best left
        return vertical(table) if table.show_header else [table]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[RenderableType]:
        yield from self.layout(console, options)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.table)


class FittingConsole(Console):
    """A Console whose print() lays out every Table it is given with FittedTable."""

    def print(self, *objects, **kwargs) -> None:  # noqa: A003 - rich's own name
        super().print(*(FittedTable(o) if isinstance(o, Table) else o for o in objects), **kwargs)
