"""Box text as the CoM data writes it: `[[x0,y0,x1,y1;...]]`, each coordinate floor(1000*c/size) clipped to 999.

Parsing maps a value back to the centre of its 1/1000 cell, so pixel boxes round-trip within 1 px.
"""

from __future__ import annotations

import math
import re

from toolkit.core.errors import InputError

BOXES_TEXT = re.compile(r"\[\[([0-9,;\s]*)\]\]")


def to_norm(box: list[float], width: int, height: int) -> list[int]:
    """Pixel box -> four ints in [0, 999]."""
    sizes = (width, height, width, height)
    return [min(999, max(0, math.floor(1000 * min(c, s - 1) / s))) for c, s in zip(box, sizes, strict=True)]


def from_norm(norm: list[int], width: int, height: int) -> list[int]:
    """Four ints in [0, 999] -> pixel box (cell centres, rounded)."""
    sizes = (width, height, width, height)
    return [round((v + 0.5) * s / 1000) for v, s in zip(norm, sizes, strict=True)]


def boxes_text(boxes: list[list[float]], width: int, height: int) -> str:
    parts = [",".join(f"{v:03d}" for v in to_norm(b, width, height)) for b in boxes]
    return "[[" + ";".join(parts) + "]]"


def check_norm(box: list[int], where: str) -> list[int]:
    """A normalized box must have 4 values in [0, 999], x0 < x1 and y0 < y1."""
    if len(box) != 4:
        raise InputError(f"{where}: a box needs 4 numbers, got {len(box)}")
    if any(v < 0 or v > 999 for v in box):
        raise InputError(f"{where}: box {box} is outside [0,999]")
    if box[0] >= box[2] or box[1] >= box[3]:
        raise InputError(f"{where}: box {box} is inverted or has zero area")
    return box


def parse_boxes(text: str, where: str = "box") -> list[list[int]]:
    """All normalized boxes of the first `[[...]]` in text (checked); [] when there is none."""
    m = BOXES_TEXT.search(text)
    if not m:
        return []
    out = []
    for part in m.group(1).split(";"):
        values = [v.strip() for v in part.split(",") if v.strip()]
        if not values:
            continue
        out.append(check_norm([int(v) for v in values], where))
    return out


def iou(a: list[float], b: list[float]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0
