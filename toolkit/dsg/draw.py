"""Pillow drawing of marks (8 classes) and lines in the materials and fills of toolkit.dsg.styles."""

from __future__ import annotations

import math
import random

from PIL import Image, ImageDraw

Box = tuple[float, float, float, float]


def _points(cls: str, box: Box) -> list[tuple[float, float]] | None:
    """The polygon of a mark class inside `box` (None for the classes drawn as strokes or ellipses)."""
    x0, y0, x1, y1 = box
    cx, cy, r = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2
    if cls == "square":
        return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    if cls == "triangle":
        return [(cx, y0), (x1, y1), (x0, y1)]
    if cls == "diamond":
        return [(cx, y0), (x1, cy), (cx, y1), (x0, cy)]
    if cls == "star":
        pts = []
        for i in range(10):
            a = -math.pi / 2 + i * math.pi / 5
            rr = r if i % 2 == 0 else r * 0.45
            pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
        return pts
    return None


def _shape_mask(cls: str, box: Box, size: tuple[int, int], width: int) -> Image.Image:
    """A mask of the mark's full (filled) shape."""
    mask = Image.new("L", size, 0)
    d = ImageDraw.Draw(mask)
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    poly = _points(cls, box)
    if poly is not None:
        d.polygon(poly, fill=255)
    elif cls in ("circle", "ring"):
        d.ellipse(box, fill=255)
        if cls == "ring":  # a ring is a thick annulus whatever the fill
            k = (x1 - x0) * 0.3
            d.ellipse((x0 + k, y0 + k, x1 - k, y1 - k), fill=0)
    elif cls == "cross":
        w = max(width * 2, 4)
        d.line([(x0, y0), (x1, y1)], fill=255, width=w)
        d.line([(x0, y1), (x1, y0)], fill=255, width=w)
    elif cls == "plus":
        w = max(width * 2, 4)
        d.line([(cx, y0), (cx, y1)], fill=255, width=w)
        d.line([(x0, cy), (x1, cy)], fill=255, width=w)
    return mask


def _outline_mask(cls: str, box: Box, size: tuple[int, int], width: int) -> Image.Image:
    if cls in ("cross", "plus", "ring"):
        return _shape_mask(cls, box, size, width)
    mask = Image.new("L", size, 0)
    d = ImageDraw.Draw(mask)
    poly = _points(cls, box)
    if poly is not None:
        d.polygon(poly, outline=255, width=width)
    else:
        d.ellipse(box, outline=255, width=width)
    return mask


def draw_mark(image: Image.Image, cls: str, box: Box, fill: str, color: tuple[int, int, int],
              width: int = 3) -> None:
    """Draw a mark of class `cls` in `box`: solid, outline, striped (outline + stripes) or hollow (double outline)."""
    size = image.size
    if fill == "solid":
        mask = _shape_mask(cls, box, size, width)
    elif fill == "outline":
        mask = _outline_mask(cls, box, size, width)
    elif fill == "striped":
        shape = _shape_mask(cls, box, size, width)
        stripes = Image.new("L", size, 0)
        d = ImageDraw.Draw(stripes)
        for y in range(int(box[1]), int(box[3]) + 1, 5):
            d.line([(box[0], y), (box[2], y)], fill=255, width=2)
        mask = Image.composite(shape, _outline_mask(cls, box, size, width), stripes)
    elif fill == "hollow":
        k = (box[2] - box[0]) * 0.18
        inner = (box[0] + k, box[1] + k, box[2] - k, box[3] - k)
        mask = _outline_mask(cls, box, size, 2)
        mask.paste(255, mask=_outline_mask(cls, inner, size, 2))
    else:
        raise ValueError(fill)
    image.paste(color, mask=mask)


def draw_line(draw: ImageDraw.ImageDraw, p0: tuple[float, float], p1: tuple[float, float], material: str,
              color: tuple[int, int, int], width: int, rng: random.Random) -> None:
    """A wall or grid line drawn in a material: solid, dashed, branch (with twigs), dotted, zigzag."""
    (x0, y0), (x1, y1) = p0, p1
    length = math.hypot(x1 - x0, y1 - y0)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    if material == "solid":
        draw.line([p0, p1], fill=color, width=width)
    elif material == "dashed":
        t = 0.0
        while t < length:
            e = min(t + 8, length)
            draw.line([(x0 + ux * t, y0 + uy * t), (x0 + ux * e, y0 + uy * e)], fill=color, width=width)
            t += 12
    elif material == "branch":
        draw.line([p0, p1], fill=color, width=max(2, width - 1))
        for _ in range(int(length // 14)):
            t = rng.uniform(0, length)
            bx, by = x0 + ux * t, y0 + uy * t
            s = rng.choice((-1, 1)) * rng.uniform(4, 7)
            draw.line([(bx, by), (bx + ux * 4 - uy * s, by + uy * 4 + ux * s)], fill=color, width=1)
    elif material == "dotted":
        t = 0.0
        r = max(1.5, width * 0.6)
        while t <= length:
            cx, cy = x0 + ux * t, y0 + uy * t
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=color)
            t += 3 * r
    elif material == "zigzag":
        pts, t, side = [], 0.0, 1
        while t <= length:
            pts.append((x0 + ux * t - uy * side * 3, y0 + uy * t + ux * side * 3))
            t += 5
            side = -side
        draw.line(pts, fill=color, width=max(1, width - 1))
    else:
        raise ValueError(material)
