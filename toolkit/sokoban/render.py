"""Plan GIFs: the level with the decoded plan's arrows drawn on each square, one frame per (step, tick)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

CELL = 28
_COLOURS = {"#": (70, 70, 78), " ": (226, 222, 210), ".": (226, 222, 210), "$": (181, 121, 56),
            "*": (96, 168, 88), "@": (226, 222, 210), "+": (226, 222, 210)}
_ARROW = (200, 30, 40)
# unit vectors (dx, dy) of classes 1..4 = UP, DOWN, LEFT, RIGHT
_DIRS = {1: (0, -1), 2: (0, 1), 3: (-1, 0), 4: (1, 0)}


def _square(draw, r: int, c: int, ch: str) -> None:
    x0, y0 = c * CELL, r * CELL
    draw.rectangle([x0, y0, x0 + CELL - 1, y0 + CELL - 1], fill=_COLOURS.get(ch, (255, 255, 255)))
    if ch in ".+*":
        m = CELL // 3
        draw.rectangle([x0 + m, y0 + m, x0 + CELL - 1 - m, y0 + CELL - 1 - m], outline=(190, 40, 40), width=2)
    if ch in "@+":
        m = CELL // 5
        draw.ellipse([x0 + m, y0 + m, x0 + CELL - 1 - m, y0 + CELL - 1 - m], fill=(50, 90, 200))


def _arrow(draw, r: int, c: int, k: int) -> None:
    dx, dy = _DIRS[k]
    cx, cy, half = c * CELL + CELL / 2, r * CELL + CELL / 2, CELL * 0.36
    tip = (cx + dx * half, cy + dy * half)
    tail = (cx - dx * half, cy - dy * half)
    draw.line([tail, tip], fill=_ARROW, width=3)
    side = (dy * CELL * 0.18, dx * CELL * 0.18)
    back = (tip[0] - dx * CELL * 0.22, tip[1] - dy * CELL * 0.22)
    draw.polygon([tip, (back[0] + side[0], back[1] + side[1]), (back[0] - side[0], back[1] - side[1])], fill=_ARROW)


_CHARS = np.array(list("# $*@+."))  # in env CHANNELS order


def obs_rows(obs: np.ndarray) -> list[str]:
    """The (7, H, W) one-hot observation as level rows."""
    return ["".join(row) for row in _CHARS[obs.argmax(0)]]


def frame(rows: list[str], plan: np.ndarray, caption: str):
    """One RGB image: `rows` are the level's interior rows, `plan` (H, W) classes 0 (NEVER) .. 4."""
    from PIL import Image, ImageDraw

    H, W = plan.shape
    img = Image.new("RGB", (W * CELL, H * CELL + 14), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    for r in range(H):
        for c in range(W):
            _square(draw, r, c, rows[r][c])
            if plan[r, c]:
                _arrow(draw, r, c, int(plan[r, c]))
    draw.text((2, H * CELL + 1), caption, fill=(0, 0, 0))
    return img


def write_gif(frames: list, path: Path, ms: int = 500) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    frames[0].save(str(path), save_all=True, append_images=frames[1:], duration=ms, loop=0)
