"""Tables at 80 columns: no header or name is cut ("Over…") or folded ("ficti" over "tious")."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from toolkit.core.tables import FittingConsole, name_columns

GAMES = ["Overall", "Guessing", "Bar", "Dollar", "Goods", "Diner", "Auction", "Battle", "Pirate"]
NAMES = ["fictitious*2,best-response*2", "py:toolkit.gama.standin:tit_for_tat"]


def _render(table: Table, width: int, cls=FittingConsole) -> list[str]:
    out = io.StringIO()
    cls(file=out, width=width, color_system=None, emoji=False).print(table)
    return out.getvalue().splitlines()


def _leaderboard() -> Table:
    table = Table(title="GAMA(γ)-Bench scores (0-100, mean over runs)")
    table.add_column("players")
    for g in GAMES:
        table.add_column(g, justify="right")
    for i, name in enumerate(NAMES):
        table.add_row(name, *[f"{10 * i + j:.1f}" for j in range(len(GAMES))])
    return table


def _whole(lines: list[str], words: list[str]) -> list[str]:
    return [w for w in words if not any(w in line for line in lines)]


def test_wide_table_is_split_with_every_word_whole_at_80_columns():
    assert any("…" in line for line in _render(_leaderboard(), 80, Console))  # what plain rich does
    lines = _render(_leaderboard(), 80)
    assert not any("…" in line for line in lines) and max(map(len, lines)) <= 80
    assert _whole(lines, GAMES + NAMES + ["players"]) == []
    # every part repeats the row names, so each value can be read against its row
    assert sum("players" in line for line in lines) >= 2
    assert all(sum(name in line for line in lines) >= 2 for name in NAMES)


def test_a_table_that_fits_is_printed_as_rich_prints_it():
    table = Table("a", "b")
    table.add_row("x", "1")
    assert _render(table, 80) == _render(table, 80, Console)


def test_named_columns_repeat_and_narrow_terminals_get_one_block_per_row():
    table = name_columns(Table(title="kv"), 2)
    for col in ("method", "budget", "accuracy", "KV held", "by task", "answer held by a head"):
        table.add_column(col)
    table.add_row("snapkv", "16", "0.250", "12 KiB (19.4%)", "single=0.25 multikey=0.00", "single=1.00 multikey=0.50")
    table.add_row("headkv", "24", "0.500", "16 KiB (25.6%)", "single=0.50 multikey=0.25", "single=1.00 multikey=1.00")
    assert not any("…" in line for line in _render(table, 80))
    lines = _render(table, 60)
    assert not any("…" in line for line in lines) and max(map(len, lines)) <= 60
    assert sum("snapkv" in line and "16" in line for line in lines) >= 2  # method and budget repeated
    narrow = _render(table, 30)
    assert not any("…" in line for line in narrow) and max(map(len, narrow)) <= 30
    assert "snapkv 16" in narrow and any(line.split() == ["accuracy", "0.250"] for line in narrow)
    assert _whole(narrow, ["multikey=0.50", "answer", "KV", "held"]) == []


def test_markup_cells_and_headerless_tables():
    table = Table(show_header=False)
    table.add_column("key")
    table.add_column("value")
    table.add_row("[bold]path[/bold]", "x" * 120)  # longer than any terminal: folded as rich does, not lost
    lines = _render(table, 80)
    assert "".join(lines).count("x") == 120 and "path" in "".join(lines)
