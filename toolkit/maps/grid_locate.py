"""Finding a circuit's grid in its image alone: how many rows and columns of points, and where they sit.

The renderer (render.py) puts grid point (r, c) at a pixel fixed by the larger side alone (`point_pixels`),
with the grid at the top-left. The generator never leaves an outer-ring edge open, so the true grid's outer
rectangle is inked all round (a wire, or an element whose body crosses the edge's line), while a candidate
that is one row or column too large runs through blank paper for a whole edge. The locator scores each
candidate (rows, cols) by the inked fraction of its outer ring's edges (the worst edge counts) and takes the
largest candidate whose every ring edge is inked; a smaller candidate of the same scale may also be inked
(its ring runs along inner wires) but covers fewer points. Text can cross a missing line, but only for a
part of its length.
"""

from __future__ import annotations

from toolkit.maps.circuit import grid_edges, on_outer_ring
from toolkit.maps.render import point_pixels

SIDES = range(2, 7)
INK = 0.35
RING_MIN = 0.9  # an outer edge counts as drawn when this fraction of its length has ink across it


def edge_ink(gray, p, q, band: float) -> float:
    """The fraction of points along the segment p -> q (pixels) with ink within `band` px across it."""
    import numpy as np

    (x1, y1), (x2, y2) = p, q
    length = max(abs(x2 - x1), abs(y2 - y1))
    n = max(4, int(length))
    # leave out the ends, where the neighbouring edges' ink would count for a missing one
    t = np.linspace(0.12, 0.88, n)
    xs, ys = x1 + t * (x2 - x1), y1 + t * (y2 - y1)
    h, w = gray.shape
    hits = 0
    horizontal = abs(y2 - y1) < abs(x2 - x1)
    b = int(round(band))
    for x, y in zip(xs, ys, strict=True):
        xi, yi = int(round(x)), int(round(y))
        if horizontal:
            column = gray[max(0, yi - b):min(h, yi + b + 1), min(max(xi, 0), w - 1)]
        else:
            column = gray[min(max(yi, 0), h - 1), max(0, xi - b):min(w, xi + b + 1)]
        hits += bool(column.size and column.max() > INK)
    return hits / n


def edge_score(gray, p, q, cell: float) -> float:
    """How surely the segment p -> q is drawn: ink across it (within a fifth of a cell: source circles and
    meters are about a third of a cell wide) along most of it, and on the line itself (wires, element
    leads) along at least half of it, so that a line a few pixels off does not count."""
    across = edge_ink(gray, p, q, max(2.0, 0.2 * cell))
    on_line = edge_ink(gray, p, q, 1.0)
    return min(across, on_line + 0.4, 1.0)


def ring_score(gray, rows: int, cols: int) -> float:
    """The smallest edge score over the outer-ring edges of a rows x cols grid."""
    pix = point_pixels(rows, cols)
    cell = max(abs(pix[(0, 1)][0] - pix[(0, 0)][0]), 1.0)
    return min(edge_score(gray, pix[a], pix[b], cell) for a, b in grid_edges(rows, cols)
               if on_outer_ring(a, b, rows, cols))


def locate_grid(gray, sides=SIDES) -> tuple[int, int, float]:
    """(rows, cols, ring score) of the grid drawn in `gray` (SIZE x SIZE, 1 = ink). Without any fully inked
    candidate, the best-scoring one, whose low score tells the caller the read is unsure."""
    best = None
    for rows in sides:
        for cols in sides:
            score = ring_score(gray, rows, cols)
            key = (score >= RING_MIN, rows * cols if score >= RING_MIN else score, -abs(rows - cols))
            if best is None or key > best[0]:
                best = (key, rows, cols, score)
    return best[1], best[2], best[3]
