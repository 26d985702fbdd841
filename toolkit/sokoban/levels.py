"""Boxoban level text: parse, check and write levels (interior grids without the wall border).

A Boxoban file holds levels as `; ID` then the rows (walls `#`, floor ` `, box `$`, target `.`,
player `@`, box on target `*`, player on target `+`) then one blank line. Levels are kept as
border-stripped interior arrays; the border must be all wall.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines

CHARS = set("# $.@*+")


@dataclass(frozen=True)
class Level:
    """One level: interior boolean grids and the player square (row, col)."""

    walls: np.ndarray
    targets: np.ndarray
    boxes: np.ndarray
    player: tuple[int, int]
    id: str = ""

    @property
    def shape(self) -> tuple[int, int]:
        return self.walls.shape

    @property
    def n_boxes(self) -> int:
        return int(self.boxes.sum())

    def rows(self) -> list[str]:
        """The full text rows, border included."""
        h, w = self.shape
        out = ["#" * (w + 2)]
        for r in range(h):
            line = "#"
            for c in range(w):
                line += cell_char(self.walls[r, c], self.targets[r, c], self.boxes[r, c], (r, c) == self.player)
            out.append(line + "#")
        out.append("#" * (w + 2))
        return out

    def text(self) -> str:
        return "\n".join(self.rows())

    def digest(self) -> str:
        """Content hash (ids ignored): used to keep splits disjoint."""
        return hashlib.sha256(self.text().encode()).hexdigest()

    def with_id(self, new_id: str) -> Level:
        return Level(self.walls, self.targets, self.boxes, self.player, new_id)


def cell_char(wall: bool, target: bool, box: bool, player: bool) -> str:
    if wall:
        return "#"
    if box:
        return "*" if target else "$"
    if player:
        return "+" if target else "@"
    return "." if target else " "


def parse_rows(rows: list[str], where: str, level_id: str = "") -> Level:
    """Check and parse the rows of one level; errors name `where` (file:line)."""
    if not rows:
        raise InputError(f"{where}: empty level")
    width = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            raise InputError(f"{where}: non-rectangular level (row {i + 1} has {len(row)} characters, "
                             f"row 1 has {width})")
        bad = set(row) - CHARS
        if bad:
            raise InputError(f"{where}: unknown character {sorted(bad)[0]!r} in row {i + 1}")
    if len(rows) < 3 or width < 3:
        raise InputError(f"{where}: level smaller than 3x3")
    border = rows[0] + rows[-1] + "".join(r[0] + r[-1] for r in rows)
    if set(border) != {"#"}:
        raise InputError(f"{where}: open border (the outer ring must be all '#')")
    grid = np.array([list(r[1:-1]) for r in rows[1:-1]])
    walls = grid == "#"
    targets = np.isin(grid, [".", "*", "+"])
    boxes = np.isin(grid, ["$", "*"])
    players = np.argwhere(np.isin(grid, ["@", "+"]))
    if len(players) != 1:
        raise InputError(f"{where}: {len(players)} agents (expected exactly 1 '@' or '+')")
    if boxes.sum() != targets.sum():
        raise InputError(f"{where}: {int(boxes.sum())} boxes but {int(targets.sum())} targets")
    if boxes.sum() == 0:
        raise InputError(f"{where}: no boxes")
    return Level(walls, targets, boxes, (int(players[0][0]), int(players[0][1])), level_id)


def parse_text(text: str, name: str, skip_bad: bool = False, bad: BadLines | None = None) -> list[Level]:
    """Parse Boxoban text (`; ID` headers, blank-line separated) or bare blank-separated grids."""
    levels: list[Level] = []
    bad = bad if bad is not None else BadLines()
    block: list[str] = []
    block_id, start = "", 1
    lines = text.split("\n")

    def flush() -> None:
        nonlocal block, block_id
        if block:
            try:
                levels.append(parse_rows(block, f"{name}:{start}", block_id or str(len(levels))))
            except InputError as exc:
                if not skip_bad:
                    raise
                bad.add(str(exc))
        block, block_id = [], ""

    for lineno, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        if line.startswith(";"):
            flush()
            block_id, start = line[1:].strip(), lineno + 1
        elif line.strip() == "":
            flush()
        else:
            if not block and not block_id:
                start = lineno
            block.append(line)
    flush()
    return levels


def format_levels(levels: list[Level]) -> str:
    """Boxoban text: `; ID`, rows, blank line per level (parse_text round-trips it byte for byte)."""
    return "".join(f"; {lv.id}\n" + lv.text() + "\n\n" for lv in levels)


def level_record(level: Level, **extra) -> dict:
    from toolkit.core.records import make_record

    return make_record("sokoban.level", id=level.id, rows=level.rows(), boxes=level.n_boxes,
                       size=list(level.shape), **extra)


def read_levels(path: str, skip_bad: bool = False, bad: BadLines | None = None,
                moves: list | None = None) -> list[Level]:
    """Levels from a Boxoban text file, a `sokoban.level` JSONL file, or '-' (stdin, either format). A `moves`
    list given receives each JSONL level's `moves` field (None where absent); text files carry none."""
    import sys

    bad = bad if bad is not None else BadLines()
    if path == "-":
        text, name = sys.stdin.read(), "<stdin>"
    else:
        p = Path(path)
        if not p.exists():
            raise InputError(f"{p}: no such file")
        if p.is_dir():
            raise InputError(f"{p}: is a directory, expected a level file")
        try:
            text, name = p.read_text(encoding="utf-8"), str(p)
        except UnicodeDecodeError:
            raise InputError(f"{p}: not UTF-8 text") from None
    if text.lstrip().startswith("{"):
        return list(_levels_from_jsonl(text, name, skip_bad, bad, moves))
    levels = parse_text(text, name, skip_bad, bad)
    if not levels and not bad.count:
        raise InputError(f"{name}: no levels found")
    return levels


def _levels_from_jsonl(text: str, name: str, skip_bad: bool, bad: BadLines,
                       moves: list | None = None) -> Iterator[Level]:
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            if not isinstance(rec, dict) or not isinstance(rec.get("rows"), list):
                raise InputError(f"{name}:{lineno}: missing field 'rows'")
            if rec.get("type", "sokoban.level") != "sokoban.level":
                continue  # other records in a mixed stream (e.g. solve_rate) are not levels
            level = parse_rows([str(r) for r in rec["rows"]], f"{name}:{lineno}", str(rec.get("id", lineno)))
            if moves is not None:
                m = rec.get("moves")
                moves.append(m if isinstance(m, int) and not isinstance(m, bool) and m >= 0 else None)
            yield level
        except json.JSONDecodeError as exc:
            err = InputError(f"{name}:{lineno}: malformed JSON: {exc.msg}")
            if not skip_bad:
                raise err from None
            bad.add(str(err))
        except InputError as exc:
            if not skip_bad:
                raise
            bad.add(str(exc))


def check_grid(levels: list[Level], grid: tuple[int, int], agent_name: str) -> None:
    """Every level must match the agent's grid; the error names both sizes."""
    for lv in levels:
        if tuple(lv.shape) != tuple(grid):
            raise InputError(f"level {lv.id}: size {lv.shape[0]}x{lv.shape[1]} differs from the agent grid "
                             f"{grid[0]}x{grid[1]} ({agent_name})")


def stack(levels: list[Level]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Arrays (L,H,W) walls/targets/boxes and (L,2) players for the batched env."""
    walls = np.stack([lv.walls for lv in levels]).astype(np.bool_)
    targets = np.stack([lv.targets for lv in levels]).astype(np.bool_)
    boxes = np.stack([lv.boxes for lv in levels]).astype(np.bool_)
    players = np.array([lv.player for lv in levels], dtype=np.int64)
    return walls, targets, boxes, players
