"""Level generator: a random-walk room, boxes placed on targets, then reverse play (the player pulls
boxes off their targets). Only levels the solver proves solvable within the move bounds are kept.

Splits never share a level: each split draws from its own seed stream, and a level belongs to the
split its content hash points at (sha256 mod 3), so train, val and test are disjoint by construction.
"""

from __future__ import annotations

import numpy as np

from toolkit.core.errors import InputError
from toolkit.sokoban.levels import Level
from toolkit.sokoban.solver import solve_fast

SPLITS = ("train", "val", "test")
DIRS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def split_of(level: Level) -> str:
    return SPLITS[int(level.digest(), 16) % len(SPLITS)]


def _room(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Walls (True) everywhere but a random walk's trail; turns with probability 0.35."""
    walls = np.ones((h, w), bool)
    r, c = int(rng.integers(h)), int(rng.integers(w))
    d = DIRS[int(rng.integers(4))]
    for _ in range(int(h * w * 3)):
        walls[r, c] = False
        if rng.random() < 0.35:
            d = DIRS[int(rng.integers(4))]
        r, c = min(max(r + d[0], 0), h - 1), min(max(c + d[1], 0), w - 1)
    walls[r, c] = False
    return walls


def _reverse_play(rng, walls, boxes, player, steps):
    h, w = walls.shape
    dr, dc = DIRS[int(rng.integers(4))]
    for _ in range(steps):
        if rng.random() < 0.5:  # keep heading: long pulls make levels that need planning
            dr, dc = DIRS[int(rng.integers(4))]
        r, c = player[0] + dr, player[1] + dc
        if not (0 <= r < h and 0 <= c < w) or walls[r, c] or boxes[r, c]:
            continue
        br, bc = player[0] - dr, player[1] - dc  # the box behind the player is pulled along
        if 0 <= br < h and 0 <= bc < w and boxes[br, bc] and rng.random() < 0.85:
            boxes[br, bc] = False
            boxes[player[0], player[1]] = True
        player = (r, c)
    return player


def candidate(rng: np.random.Generator, h: int, w: int, n_boxes: int) -> Level | None:
    walls = _room(rng, h, w)
    floor = np.argwhere(~walls)
    if len(floor) < n_boxes + 4:
        return None
    picks = rng.choice(len(floor), n_boxes + 1, replace=False)
    targets = np.zeros_like(walls)
    boxes = np.zeros_like(walls)
    for k in picks[:-1]:
        targets[tuple(floor[k])] = boxes[tuple(floor[k])] = True
    player = tuple(int(x) for x in floor[picks[-1]])
    player = _reverse_play(rng, walls, boxes, player, int(rng.integers(20, 120)))
    if (boxes & targets).sum() == n_boxes:
        return None
    return Level(walls, targets, boxes, player)


def generate(n: int, size: tuple[int, int], boxes: list[int], max_moves: int, split: str, seed: int,
             min_moves: int = 6, node_limit: int = 20_000) -> list[tuple[Level, int, int]]:
    """n levels (cycling through the box counts) with their optimal moves and pushes."""
    if split not in SPLITS:
        raise InputError(f"--split {split}: expected one of {', '.join(SPLITS)}")
    if min(size) < 3:
        raise InputError(f"--size {size[0]}x{size[1]}: at least 3x3")
    if not boxes or min(boxes) < 1:
        raise InputError("--boxes: at least one box per level")
    rng = np.random.default_rng([seed, SPLITS.index(split), 0x50C0])
    out: list[tuple[Level, int, int]] = []
    seen: set[str] = set()
    tries = 0
    while len(out) < n:
        tries += 1
        if tries > 2000 * n + 10_000:
            raise InputError(f"could not make {n} levels with these bounds (made {len(out)})")
        k = boxes[len(out) % len(boxes)]
        level = candidate(rng, size[0], size[1], k)
        if level is None or split_of(level) != split:
            continue
        digest = level.digest()
        if digest in seen:
            continue
        sol = solve_fast(level, node_limit)
        if not sol.solved or not (min_moves <= sol.moves <= max_moves):
            continue
        seen.add(digest)
        out.append((level.with_id(f"{split}-{seed}-{len(out)}"), sol.moves, sol.pushes))
    return out
