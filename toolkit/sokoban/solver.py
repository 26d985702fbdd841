"""Optimal Sokoban solving: push-level A* (box-target assignment heuristic) and move-level BFS.

Both find move-optimal solutions. A* expands push states (boxes, player square after the push);
the walk to each push comes from a flood fill of the player's region. Pruning: dead squares (no
target reachable by pushing) and 2x2 freezes (a 2x2 block of walls/boxes holding a box off target).
Solutions are LURD strings: lower case walks, upper case pushes.
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from toolkit.sokoban.levels import Level

DIRS = ((-1, 0, "u"), (1, 0, "d"), (0, -1, "l"), (0, 1, "r"))
LETTER_ACTION = {"u": 1, "d": 2, "l": 3, "r": 4}


@dataclass
class Solution:
    solved: bool
    moves: int
    pushes: int
    lurd: str
    nodes: int
    status: str  # solved | unsolvable | node-limit

    def actions(self) -> list[int]:
        return [LETTER_ACTION[ch.lower()] for ch in self.lurd]


class Board:
    """Static facts of a level: walls, targets, live squares, neighbour tables on flat indices."""

    def __init__(self, level: Level):
        self.h, self.w = level.shape
        self.walls = level.walls.ravel().copy()
        self.targets = frozenset(int(i) for i in np.flatnonzero(level.targets))
        self.target_rc = [divmod(t, self.w) for t in sorted(self.targets)]
        self.live = self._live_squares()

    def step(self, i: int, dr: int, dc: int) -> int:
        """Flat index one step away, or -1 off the grid or into a wall."""
        r, c = divmod(i, self.w)
        r, c = r + dr, c + dc
        if 0 <= r < self.h and 0 <= c < self.w and not self.walls[r * self.w + c]:
            return r * self.w + c
        return -1

    def _live_squares(self) -> set[int]:
        live = set(self.targets)
        frontier = list(self.targets)
        while frontier:
            y = frontier.pop()
            for dr, dc, _ in DIRS:  # a box reaches y from y-d when the player can stand at y-2d
                prev = self.step(y, -dr, -dc)
                if prev >= 0 and prev not in live and self.step(prev, -dr, -dc) >= 0:
                    live.add(prev)
                    frontier.append(prev)
        return live

    def frozen(self, boxes: frozenset[int], moved: int) -> bool:
        """A 2x2 block of walls/boxes around the moved box with a box off target is a dead end."""
        r, c = divmod(moved, self.w)
        for r0 in (r - 1, r):
            for c0 in (c - 1, c):
                cells = [(r0, c0), (r0 + 1, c0), (r0, c0 + 1), (r0 + 1, c0 + 1)]
                solid, off = True, False
                for rr, cc in cells:
                    inside = 0 <= rr < self.h and 0 <= cc < self.w
                    i = rr * self.w + cc
                    if inside and i in boxes:
                        off |= i not in self.targets
                    elif inside and not self.walls[i]:
                        solid = False
                        break
                if solid and off:
                    return True
        return False

    def heuristic(self, boxes: frozenset[int]) -> int:
        """Minimum-cost box-to-target matching on Manhattan distance: a lower bound on pushes."""
        box_rc = [divmod(b, self.w) for b in boxes]
        cost = np.array([[abs(br - tr) + abs(bc - tc) for tr, tc in self.target_rc] for br, bc in box_rc])
        rows, cols = linear_sum_assignment(cost)
        return int(cost[rows, cols].sum())

    def walk(self, start: int, boxes: frozenset[int]) -> dict[int, tuple[int, str]]:
        """Flood fill of the player's region: square -> (previous square, letter)."""
        seen = {start: (-1, "")}
        queue = deque([start])
        while queue:
            i = queue.popleft()
            for dr, dc, ch in DIRS:
                j = self.step(i, dr, dc)
                if j >= 0 and j not in seen and j not in boxes:
                    seen[j] = (i, ch)
                    queue.append(j)
        return seen


def _path(seen: dict[int, tuple[int, str]], end: int) -> str:
    out = []
    while seen[end][0] >= 0:
        end, ch = seen[end]
        out.append(ch)
    return "".join(reversed(out))


def solve(level: Level, algo: str = "astar", node_limit: int = 200_000) -> Solution:
    """`bfs` runs the numba BFS (the same Solution as solve_bfs) on interiors of up to 56 squares."""
    if algo == "astar":
        return solve_astar(level, node_limit)
    if algo == "bfs":
        from toolkit.sokoban.solver_numba import fits, solve_bfs_fast

        return solve_bfs_fast(level, node_limit) if fits(level) else solve_bfs(level, node_limit)
    raise ValueError(f"unknown solver {algo!r}")


def solve_fast(level: Level, astar_node_limit: int = 20_000, bfs_node_limit: int = 200_000) -> Solution:
    """A move-optimal solution, the quickest way: the numba BFS where the level fits it, else A*."""
    from toolkit.sokoban.solver_numba import fits, solve_bfs_fast

    return solve_bfs_fast(level, bfs_node_limit) if fits(level) else solve_astar(level, astar_node_limit)


def solve_astar(level: Level, node_limit: int = 200_000) -> Solution:
    board = Board(level)
    boxes0 = frozenset(int(i) for i in np.flatnonzero(level.boxes))
    start = (boxes0, level.player[0] * board.w + level.player[1])
    if boxes0 <= board.targets:
        return Solution(True, 0, 0, "", 0, "solved")
    if any(b not in board.live for b in boxes0):
        return Solution(False, 0, 0, "", 0, "unsolvable")
    best = {start: 0}
    parent: dict = {start: None}
    heap = [(board.heuristic(boxes0), 0, 0, start)]
    tie, nodes = 0, 0
    while heap:
        _, g, _, state = heapq.heappop(heap)
        if g > best[state]:
            continue
        boxes, player = state
        if boxes <= board.targets:
            return _unwind(board, parent, state, nodes)
        nodes += 1
        if nodes > node_limit:
            return Solution(False, 0, 0, "", nodes, "node-limit")
        seen = board.walk(player, boxes)
        dist = _distances(seen)
        for b in boxes:
            for dr, dc, ch in DIRS:
                stand, beyond = board.step(b, -dr, -dc), board.step(b, dr, dc)
                if stand < 0 or stand not in dist or beyond < 0 or beyond in boxes or beyond not in board.live:
                    continue
                new_boxes = (boxes - {b}) | {beyond}
                if board.frozen(new_boxes, beyond):
                    continue
                nxt, cost = (new_boxes, b), g + dist[stand] + 1
                if cost < best.get(nxt, 1 << 30):
                    best[nxt] = cost
                    parent[nxt] = (state, stand, ch.upper())
                    tie += 1
                    heapq.heappush(heap, (cost + board.heuristic(new_boxes), cost, tie, nxt))
    return Solution(False, 0, 0, "", nodes, "unsolvable")


def _distances(seen: dict[int, tuple[int, str]]) -> dict[int, int]:
    dist: dict[int, int] = {}
    for i in seen:  # seen is in BFS order, so a square's parent is already measured
        prev = seen[i][0]
        dist[i] = 0 if prev < 0 else dist[prev] + 1
    return dist


def _unwind(board: Board, parent: dict, state, nodes: int) -> Solution:
    pieces = []
    while parent[state] is not None:
        prev, stand, push = parent[state]
        seen = board.walk(prev[1], prev[0])
        pieces.append(_path(seen, stand) + push)
        state = prev
    lurd = "".join(reversed(pieces))
    return Solution(True, len(lurd), sum(ch.isupper() for ch in lurd), lurd, nodes, "solved")


def solve_bfs(level: Level, node_limit: int = 200_000) -> Solution:
    """Breadth-first search over (player, boxes) single moves: move-optimal, no heuristic."""
    board = Board(level)
    boxes0 = frozenset(int(i) for i in np.flatnonzero(level.boxes))
    start = (level.player[0] * board.w + level.player[1], boxes0)
    parent: dict = {start: None}
    queue = deque([start])
    nodes = 0
    while queue:
        state = queue.popleft()
        player, boxes = state
        if boxes <= board.targets:
            out = []
            while parent[state] is not None:
                state, ch = parent[state]
                out.append(ch)
            lurd = "".join(reversed(out))
            return Solution(True, len(lurd), sum(c.isupper() for c in lurd), lurd, nodes, "solved")
        nodes += 1
        if nodes > node_limit:
            return Solution(False, 0, 0, "", nodes, "node-limit")
        for dr, dc, ch in DIRS:
            j = board.step(player, dr, dc)
            if j < 0:
                continue
            if j in boxes:
                beyond = board.step(j, dr, dc)
                if beyond < 0 or beyond in boxes or beyond not in board.live:
                    continue
                new_boxes = (boxes - {j}) | {beyond}
                if board.frozen(new_boxes, beyond):
                    continue
                nxt, letter = (j, new_boxes), ch.upper()
            else:
                nxt, letter = (j, boxes), ch
            if nxt not in parent:
                parent[nxt] = (state, letter)
                queue.append(nxt)
    return Solution(False, 0, 0, "", nodes, "unsolvable")
