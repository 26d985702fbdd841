"""The AHA grid image: rows = camera views, columns = keyframes, each cell numbered top-left.

Cells of keyframes after the sub-task in question are left white.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

ROWS = ("front", "overhead", "wrist")
GAP = 2


def compose_grid(columns: list[dict[str, np.ndarray] | None], upto: int, total: int, size: int) -> Image.Image:
    """columns[k][view] is an (size, size, 3) image; columns after `upto` (and missing ones) stay white."""
    width = total * size + (total + 1) * GAP
    height = len(ROWS) * size + (len(ROWS) + 1) * GAP
    canvas = np.full((height, width, 3), 255, dtype=np.uint8)
    for k in range(min(upto + 1, len(columns))):
        images = columns[k]
        if images is None:
            continue
        for r, view in enumerate(ROWS):
            y, x = GAP + r * (size + GAP), GAP + k * (size + GAP)
            canvas[y:y + size, x:x + size] = images[view]
    img = Image.fromarray(canvas)
    draw = ImageDraw.Draw(img)
    for k in range(total):
        for r in range(len(ROWS)):
            y, x = GAP + r * (size + GAP), GAP + k * (size + GAP)
            label = str(k)
            box = (x, y, x + 7 * len(label) + 3, y + 11)
            draw.rectangle(box, fill=(0, 0, 0) if k <= upto else (200, 200, 200))
            draw.text((x + 2, y), label, fill=(255, 255, 255))
            if k > upto:
                draw.rectangle((x, y, x + size - 1, y + size - 1), outline=(210, 210, 210))
    return img


def is_white(cell: np.ndarray) -> bool:
    """Whether a grid cell (ignoring its number tag and outline) is blank."""
    return bool((cell[12:-2, 2:-2] == 255).all())
