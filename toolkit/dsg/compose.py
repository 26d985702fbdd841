"""`--compose program`: registered composers map grounded node values to the answer of an abstract question.

A composer reads only the grounded values and the item's question fields (task, choices), never gold.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from toolkit.core.errors import InputError
from toolkit.dsg.data import Item
from toolkit.dsg.generate import LINES, SCENES, maze_graph, shortest_path_length

Values = dict[str, str]


def _int(text: str | None, default: int = 0) -> int:
    m = re.search(r"\d+", text or "")
    return int(m.group()) if m else default


def _cell(text: str | None) -> tuple[int, int] | None:
    m = re.search(r"r\s*(\d+)\s*c\s*(\d+)", text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def maze(values: Values, item: Item) -> str:
    n = _int(values.get("layout"), 4)
    right = {(r, c): values.get(f"vertical_walls[{r},{c}]") != "open" for r in range(1, n + 1) for c in range(1, n)}
    below = {(r, c): values.get(f"horizontal_walls[{r},{c}]") != "open" for r in range(1, n) for c in range(1, n + 1)}
    start, goal = _cell(values.get("entry")), _cell(values.get("exit"))
    g = maze_graph(n, right, below)
    length = shortest_path_length(g, start, goal) if start in g and goal in g and start != goal else None
    if item.task == "maze.path":
        return "yes" if length is not None else "no"
    return str(length) if length is not None else "none"


def tictactoe(values: Values, item: Item) -> str:
    board = {(r, c): values.get(f"marks[{r + 1},{c + 1}]", "empty") for r in range(3) for c in range(3)}
    if item.task == "tictactoe.winner":
        for line in LINES:
            marks = {board[x] for x in line}
            if len(marks) == 1 and not marks & {"empty", "none", ""}:
                return marks.pop()
        return "none"
    players = list(item.choices or [])
    counts = {p: sum(1 for v in board.values() if v == p) for p in players}
    if len(players) != 2:
        raise InputError(f"item {item.id}: whose-turn needs the two marks as choices")
    a, b = players
    return b if counts[b] < counts[a] else a if counts[a] < counts[b] else a


def stacks(values: Values, item: Item) -> str:
    k = _int(values.get("piles"))
    counts = [_int(values.get(f"objects[{i}]")) for i in range(1, k + 1)]
    if not counts:
        return "none"
    if item.task == "stacks.tallest":
        return str(counts.index(max(counts)) + 1)
    return str(max(counts) - min(counts))


COMPOSERS: dict[str, Callable[[Values, Item], str]] = {"maze": maze, "tictactoe": tictactoe, "stacks": stacks}


def composer_for(name: str | None, item: Item) -> Callable[[Values, Item], str]:
    """The composer of a schema, for an item whose task it answers: a composer computes the answer of the
    generated questions (`task`), so an item with another question (an imported VAD item has no task) is refused
    rather than answered with a value that is not among its choices."""
    if not name or name not in COMPOSERS:
        raise InputError(f"item {item.id}: --compose program: no composer registered for concept "
                         f"{item.concept!r} (schema compose: {name!r}; known: {', '.join(COMPOSERS)})")
    tasks = SCENES[name][1]
    if item.task not in tasks:
        has = f"task {item.task!r}" if item.task else "no task (an imported question)"
        raise InputError(f"item {item.id}: --compose program: the {name} composer answers only the tasks "
                         f"{', '.join(tasks)}; this item has {has}; use --compose vlm")
    return COMPOSERS[name]
