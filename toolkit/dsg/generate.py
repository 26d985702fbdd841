"""Synthetic visual-abstraction scenes with exact gold: tic-tac-toe boards, mazes and stacks of objects.

Each scene yields a 256-px image, the gold value of every schema node (expanded ids, e.g.
`cell[1,2]`) and one abstract question. Gold answers come from the scene itself: three in a row by
brute force over the board's lines, maze paths by `networkx` shortest paths over the open walls.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw

from toolkit.core.errors import InputError
from toolkit.dsg.draw import draw_line, draw_mark
from toolkit.dsg.styles import MARKS, Style

SIZE = 256
CONCEPTS = ("tictactoe", "maze", "stacks")


@dataclass
class Scene:
    concept: str
    image: Image.Image
    nodes: dict[str, str]  # expanded node id -> gold answer
    task: str  # e.g. maze.path
    question: str
    answer: str
    question_type: str  # choice | count
    choices: list[str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def cell_name(r: int, c: int) -> str:
    return f"r{r}c{c}"


def _canvas(style: Style, rng: random.Random):
    bg = rng.choice(style.backgrounds)
    image = Image.new("RGB", (SIZE, SIZE), bg)
    return image, ImageDraw.Draw(image)


# ---- tic-tac-toe -------------------------------------------------------------------------------

LINES = [[(r, c) for c in range(3)] for r in range(3)] + [[(r, c) for r in range(3)] for c in range(3)] + \
    [[(i, i) for i in range(3)], [(i, 2 - i) for i in range(3)]]


def three_in_a_row(board: dict[tuple[int, int], str]) -> str:
    """The mark that fills a whole row, column or diagonal ('none' when no mark does)."""
    for line in LINES:
        marks = {board.get(cell, "empty") for cell in line}
        if len(marks) == 1 and "empty" not in marks:
            return marks.pop()
    return "none"


def whose_turn(board: dict[tuple[int, int], str], players: list[str]) -> str:
    """The player with fewer marks moves next (the first listed on a tie)."""
    counts = [sum(1 for v in board.values() if v == p) for p in players]
    return players[1] if counts[1] < counts[0] else players[0]


def tictactoe_scene(rng: random.Random, style: Style, task: str, slot: int = 0) -> Scene:
    players = rng.sample(MARKS, 2)
    target = [*players, "none"][slot % 3] if task == "tictactoe.winner" else None
    while True:  # rejection sampling until the board shows the wanted three-in-a-row (one winner at most)
        few = rng.randint(2, 3)  # 5 or 7 marks: a cell is empty, A's or B's a third of the time each
        counts = [few + 1, few] if rng.random() < 0.5 else [few, few + 1]
        cells = rng.sample([(r, c) for r in range(3) for c in range(3)], sum(counts))
        board = {cell: players[0] if i < counts[0] else players[1] for i, cell in enumerate(cells)}
        winners = {v for line in LINES for v in [board.get(line[0])] if v and all(board.get(x) == v for x in line)}
        if len(winners) > 1:
            continue
        if target is None or three_in_a_row(board) == target:
            break
    image, draw = _canvas(style, rng)
    ink, mark_inks = rng.choice(style.palettes), rng.sample(style.palettes, 2)
    material, fill = rng.choice(style.materials), rng.choice(style.fills)
    lo, hi = 28 + rng.randint(-6, 6), 228 + rng.randint(-6, 6)
    step = (hi - lo) / 3
    for k in (1, 2):
        draw_line(draw, (lo + k * step, lo), (lo + k * step, hi), material, ink, 4, rng)
        draw_line(draw, (lo, lo + k * step), (hi, lo + k * step), material, ink, 4, rng)
    pad = step * 0.2
    for (r, c), mark in board.items():
        box = (lo + c * step + pad, lo + r * step + pad, lo + (c + 1) * step - pad, lo + (r + 1) * step - pad)
        draw_mark(image, mark, box, fill, mark_inks[players.index(mark)], width=4)
    nodes = {"board": "3"}
    nodes.update({f"marks[{r + 1},{c + 1}]": board.get((r, c), "empty") for r in range(3) for c in range(3)})
    if task == "tictactoe.winner":
        question = "Which mark has three in a row?"
        return Scene("tictactoe", image, nodes, task, question, three_in_a_row(board), "choice",
                     sorted(players) + ["none"])
    question = "Whose turn is it?"
    return Scene("tictactoe", image, nodes, task, question, whose_turn(board, players), "choice", sorted(players),
                 {"players": players})


# ---- maze --------------------------------------------------------------------------------------

MAZE_N = 4
WALL_P = (0.4, 0.65)  # range of a scene's wall probability: after the path rejection about half the segments stand


def maze_graph(n: int, walls_right: dict[tuple[int, int], bool], walls_below: dict[tuple[int, int], bool]):
    """The grid graph of cells (1-based (row, col)) with an edge wherever no wall stands."""
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from((r, c) for r in range(1, n + 1) for c in range(1, n + 1))
    for (r, c), wall in walls_right.items():
        if not wall:
            g.add_edge((r, c), (r, c + 1))
    for (r, c), wall in walls_below.items():
        if not wall:
            g.add_edge((r, c), (r + 1, c))
    return g


def shortest_path_length(g, start, goal) -> int | None:
    import networkx as nx

    try:
        return nx.shortest_path_length(g, start, goal)
    except nx.NetworkXNoPath:
        return None


MAZE_LENGTHS = range(1, 7)  # the shortest-path lengths asked, each equally often


def maze_scene(rng: random.Random, style: Style, task: str, slot: int = 0) -> Scene:
    """Gold answers balanced within each question: a path exists half the time, the length is uniform over
    MAZE_LENGTHS; the wall density is centred so a wall segment is open about half the time."""
    n = MAZE_N
    want_path = slot % 2 == 0 if task == "maze.path" else True
    want_length = MAZE_LENGTHS[slot % len(MAZE_LENGTHS)] if task == "maze.length" else None
    while True:
        p = rng.uniform(*WALL_P)
        right = {(r, c): rng.random() < p for r in range(1, n + 1) for c in range(1, n)}
        below = {(r, c): rng.random() < p for r in range(1, n) for c in range(1, n + 1)}
        start, goal = rng.sample([(r, c) for r in range(1, n + 1) for c in range(1, n + 1)], 2)
        length = shortest_path_length(maze_graph(n, right, below), start, goal)
        if (length is not None) == want_path and want_length in (None, length):
            break
    image, draw = _canvas(style, rng)
    ink = rng.choice(style.palettes)
    material, fill = rng.choice(style.materials), rng.choice(style.fills)
    lo, hi = 32, 224
    step = (hi - lo) / n
    for a, b in (((lo, lo), (hi, lo)), ((hi, lo), (hi, hi)), ((hi, hi), (lo, hi)), ((lo, hi), (lo, lo))):
        draw_line(draw, a, b, material, ink, 5, rng)
    for (r, c), wall in right.items():
        if wall:
            x = lo + c * step
            draw_line(draw, (x, lo + (r - 1) * step), (x, lo + r * step), material, ink, 5, rng)
    for (r, c), wall in below.items():
        if wall:
            y = lo + r * step
            draw_line(draw, (lo + (c - 1) * step, y), (lo + c * step, y), material, ink, 5, rng)
    marks = rng.sample([pc for pc in style.palettes if pc != ink] or list(style.palettes), 1)[0]
    pad = step * 0.25
    for (r, c), shape in ((start, "circle"), (goal, "star")):
        box = (lo + (c - 1) * step + pad, lo + (r - 1) * step + pad, lo + c * step - pad, lo + r * step - pad)
        draw_mark(image, shape, box, fill, marks, width=3)
    nodes = {"layout": str(n), "entry": cell_name(*start), "exit": cell_name(*goal)}
    nodes.update({f"vertical_walls[{r},{c}]": "wall" if w else "open" for (r, c), w in right.items()})
    nodes.update({f"horizontal_walls[{r},{c}]": "wall" if w else "open" for (r, c), w in below.items()})
    if task == "maze.path":
        return Scene("maze", image, nodes, task, "Is there a path from the start to the goal?",
                     "yes" if length is not None else "no", "choice", ["no", "yes"])
    return Scene("maze", image, nodes, task, "How many steps long is the shortest path from the start to the goal?",
                 str(length), "count")


# ---- stacks ------------------------------------------------------------------------------------

MAX_OBJECTS = 7


def pile_counts(rng: random.Random, k: int, spread: int) -> list[int]:
    """k pile heights in 1..MAX_OBJECTS with a unique tallest pile, tallest - shortest = spread, the tallest
    and shortest at random positions."""
    low = rng.randint(1, MAX_OBJECTS - spread)
    counts = [rng.randint(low, low + spread - 1) for _ in range(k)]
    tall, short = rng.sample(range(k), 2)
    counts[tall], counts[short] = low + spread, low
    return counts


def stacks_scene(rng: random.Random, style: Style, task: str, slot: int = 0) -> Scene:
    """Gold answers balanced within each question: the number of piles is uniform over 3-5, the tallest pile's
    position uniform over the piles, the spread (tallest - shortest) uniform over 1-6."""
    k = rng.randint(3, 5)
    spread = 1 + slot % (MAX_OBJECTS - 1) if task == "stacks.spread" else rng.randint(1, MAX_OBJECTS - 1)
    counts = pile_counts(rng, k, spread)
    image, draw = _canvas(style, rng)
    ink, obj_ink = rng.sample(style.palettes, 2)
    material, fill = rng.choice(style.materials), rng.choice(style.fills)
    shape = rng.choice(MARKS)
    ground = 236
    draw_line(draw, (8, ground + 4), (248, ground + 4), material, ink, 3, rng)
    width = 240 / k
    obj = min(28.0, width * 0.7)
    for i, count in enumerate(counts):
        cx = 8 + width * (i + 0.5)
        for j in range(count):
            y1 = ground - j * (obj + 3)
            draw_mark(image, shape, (cx - obj / 2, y1 - obj, cx + obj / 2, y1), fill, obj_ink, width=3)
    nodes = {"piles": str(k)}
    nodes.update({f"objects[{i + 1}]": str(c) for i, c in enumerate(counts)})
    if task == "stacks.tallest":
        return Scene("stacks", image, nodes, task, "Which pile is the tallest?", str(counts.index(max(counts)) + 1),
                     "choice", [str(i + 1) for i in range(k)])
    return Scene("stacks", image, nodes, task,
                 "How many more objects does the tallest pile have than the shortest pile?",
                 str(max(counts) - min(counts)), "count")


SCENES: dict[str, tuple[Callable[..., Scene], tuple[str, str]]] = {
    "tictactoe": (tictactoe_scene, ("tictactoe.winner", "tictactoe.turn")),
    "maze": (maze_scene, ("maze.path", "maze.length")),
    "stacks": (stacks_scene, ("stacks.tallest", "stacks.spread")),
}


def check_concepts(names: list[str]) -> list[str]:
    for name in names:
        if name not in SCENES:
            raise InputError(f"--concepts {name!r}: unknown concept (expected some of {', '.join(SCENES)})")
    if not names:
        raise InputError("--concepts: no concept given")
    return names


def make_scene(concept: str, style: Style, seed: int, index: int) -> Scene:
    """Scene `index` of a concept: the two abstract questions alternate, each scene from its own seeded RNG."""
    fn, tasks = SCENES[concept]
    rng = random.Random(f"dsg/{concept}/{style.name}/{seed}/{index}")
    # the wanted gold answer cycles with the scene's slot (its index among the scenes of its question), so every
    # answer of a question is gold equally often in any split, up to one
    return fn(rng, style, tasks[index % 2], index // 2)
