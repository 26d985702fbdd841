"""Move-level BFS in numba on bitmask states (same search and pruning as solver.solve_bfs): the fast path
for bulk checks of small levels (interior up to 56 squares, so a state packs into one int64)."""

from __future__ import annotations

import numpy as np
from numba import njit

from toolkit.sokoban.levels import Level

MAX_SQUARES = 56


@njit(cache=True)
def _frozen(walls, boxes, targets, h, w, moved):
    r, c = moved // w, moved % w
    for r0 in (r - 1, r):
        for c0 in (c - 1, c):
            solid, off = True, False
            for rr, cc in ((r0, c0), (r0 + 1, c0), (r0, c0 + 1), (r0 + 1, c0 + 1)):
                inside = 0 <= rr < h and 0 <= cc < w
                i = rr * w + cc
                if inside and (boxes >> i) & 1:
                    off |= not (targets >> i) & 1
                elif inside and not walls[i]:
                    solid = False
                    break
            if solid and off:
                return True
    return False


@njit(cache=True)
def _insert(table, key):
    """Open-addressing set of int64 keys (-1 = empty); returns False when the key was there already."""
    mask = len(table) - 1
    i = ((key * 0x5BD1E995) >> 7) & mask
    while table[i] != -1:
        if table[i] == key:
            return False
        i = (i + 1) & mask
    table[i] = key
    return True


@njit(cache=True)
def _grow(table):
    bigger = np.full(len(table) * 2, -1, np.int64)
    for key in table:
        if key != -1:
            _insert(bigger, key)
    return bigger


@njit(cache=True)
def bfs(walls, h, w, targets, boxes0, player0, live, node_limit):
    """Returns (optimal moves or -1 unsolvable / -2 node limit, expanded nodes)."""
    depth, nodes, _, _, _ = bfs_path(walls, h, w, targets, boxes0, player0, live, node_limit)
    return depth, nodes


@njit(cache=True)
def bfs_path(walls, h, w, targets, boxes0, player0, live, node_limit):
    """bfs with the search tree: (moves or -1 / -2, expanded nodes, goal entry, parent entry per queue entry,
    move per queue entry: direction 0-3 (u, d, l, r), +4 for a push)."""
    seen = np.full(1 << 12, -1, np.int64)
    count = 1
    q_box = np.empty(1024, np.int64)
    q_pl = np.empty(1024, np.int64)
    q_d = np.empty(1024, np.int64)
    q_par = np.empty(1024, np.int64)
    q_mv = np.empty(1024, np.int64)
    head, tail = 0, 1
    q_box[0], q_pl[0], q_d[0], q_par[0], q_mv[0] = boxes0, player0, 0, -1, -1
    _insert(seen, boxes0 * 64 + player0)
    nodes = 0
    drs = (-1, 1, 0, 0)
    dcs = (0, 0, -1, 1)
    while head < tail:
        me = head
        boxes, player, depth = q_box[head], q_pl[head], q_d[head]
        head += 1
        if boxes & ~targets == 0:
            return depth, nodes, me, q_par[:tail], q_mv[:tail]
        nodes += 1
        if nodes > node_limit:
            return -2, nodes, -1, q_par[:tail], q_mv[:tail]
        r, c = player // w, player % w
        for k in range(4):
            rr, cc = r + drs[k], c + dcs[k]
            if not (0 <= rr < h and 0 <= cc < w) or walls[rr * w + cc]:
                continue
            j = rr * w + cc
            nb = boxes
            move = k
            if (boxes >> j) & 1:
                move = k + 4
                r2, c2 = rr + drs[k], cc + dcs[k]
                if not (0 <= r2 < h and 0 <= c2 < w):
                    continue
                beyond = r2 * w + c2
                if walls[beyond] or (boxes >> beyond) & 1 or not live[beyond]:
                    continue
                nb = (boxes & ~(np.int64(1) << j)) | (np.int64(1) << beyond)
                if _frozen(walls, nb, targets, h, w, beyond):
                    continue
            if not _insert(seen, nb * 64 + j):
                continue
            count += 1
            if 2 * count > len(seen):
                seen = _grow(seen)
            if tail == len(q_box):
                q_box = np.concatenate((q_box, np.empty_like(q_box)))
                q_pl = np.concatenate((q_pl, np.empty_like(q_pl)))
                q_d = np.concatenate((q_d, np.empty_like(q_d)))
                q_par = np.concatenate((q_par, np.empty_like(q_par)))
                q_mv = np.concatenate((q_mv, np.empty_like(q_mv)))
            q_box[tail], q_pl[tail], q_d[tail], q_par[tail], q_mv[tail] = nb, j, depth + 1, me, move
            tail += 1
    return -1, nodes, -1, q_par[:tail], q_mv[:tail]


@njit(cache=True)
def live_squares(walls, h, w, targets):
    """Squares from which some target can be reached by pushing (solver.Board's live set, on flat indices).

    Computed here too: on small levels the Python version cost more than the search itself."""
    live = targets.copy()
    stack = np.empty(h * w, np.int64)
    top = 0
    for i in range(h * w):
        if targets[i]:
            stack[top] = i
            top += 1
    drs = (-1, 1, 0, 0)
    dcs = (0, 0, -1, 1)
    while top > 0:
        top -= 1
        y = stack[top]
        r, c = y // w, y % w
        for k in range(4):  # a box reaches y from y-d when the player can stand at y-2d
            r1, c1, r2, c2 = r - drs[k], c - dcs[k], r - 2 * drs[k], c - 2 * dcs[k]
            if not (0 <= r1 < h and 0 <= c1 < w and 0 <= r2 < h and 0 <= c2 < w):
                continue
            prev = r1 * w + c1
            if walls[prev] or walls[r2 * w + c2] or live[prev]:
                continue
            live[prev] = True
            stack[top] = prev
            top += 1
    return live


def _packed(level: Level):
    h, w = level.shape
    if h * w > MAX_SQUARES:
        raise ValueError(f"numba BFS packs states into int64: at most {MAX_SQUARES} squares, got {h * w}")
    walls = level.walls.ravel().astype(np.bool_)
    live = live_squares(walls, h, w, level.targets.ravel().astype(np.bool_))
    bits = np.int64(1) << np.arange(h * w, dtype=np.int64)
    targets = np.int64(bits[level.targets.ravel()].sum())
    boxes = np.int64(bits[level.boxes.ravel()].sum())
    return walls, h, w, targets, boxes, level.player[0] * w + level.player[1], live


def solve_bfs_numba(level: Level, node_limit: int = 200_000) -> tuple[int, int]:
    """(optimal moves, -1 unsolvable or -2 node limit; expanded nodes) for interiors of up to 56 squares."""
    return bfs(*_packed(level), node_limit)


def fits(level: Level) -> bool:
    return level.shape[0] * level.shape[1] <= MAX_SQUARES


def solve_bfs_fast(level: Level, node_limit: int = 200_000):
    """solver.solve_bfs in numba: the same Solution (the same LURD string: the same search order and pruning)."""
    from toolkit.sokoban.solver import Solution

    depth, nodes, goal, parent, move = bfs_path(*_packed(level), node_limit)
    if depth == -2:
        return Solution(False, 0, 0, "", int(nodes), "node-limit")
    if depth == -1:
        return Solution(False, 0, 0, "", int(nodes), "unsolvable")
    letters = []
    while parent[goal] >= 0:
        letter = "udlr"[move[goal] % 4]
        letters.append(letter.upper() if move[goal] >= 4 else letter)
        goal = parent[goal]
    lurd = "".join(reversed(letters))
    return Solution(True, len(lurd), sum(ch.isupper() for ch in lurd), lurd, int(nodes), "solved")
