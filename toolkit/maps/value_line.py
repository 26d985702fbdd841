"""Finding the printed value of an element: the last text line of its label, cut to its ink and scaled.

The label sits beside the element's body (above a horizontal element, left of a vertical one) and
ends with the value line ("4.7kΩ", "5·U1"; a symbol-only element shows just its name). The box keeps
clear of the body, which is wider for sources (circles, diamonds) than for resistors.
"""

from __future__ import annotations

from toolkit.maps.render import point_pixels

LINE_H, LINE_W = 14, 56
INK = 0.4
ROUND = {"V", "I", "E", "G", "F", "H"}


def label_box(rows: int, cols: int, a, b, kind: str, ammeter: bool) -> tuple[int, int, int, int]:
    pix = point_pixels(rows, cols)
    (x1, y1), (x2, y2) = pix[tuple(a)], pix[tuple(b)]
    frac = 0.31 if ammeter else 0.5
    mx, my = x1 + frac * (x2 - x1), y1 + frac * (y2 - y1)
    cell = max(abs(x2 - x1), abs(y2 - y1))
    gap = 0.2 if kind in ROUND else 0.1
    if a[0] == b[0]:
        return int(mx - 0.4 * cell), int(my - 0.5 * cell), int(mx + 0.4 * cell), int(my - gap * cell)
    return int(mx - 0.6 * cell), int(my - 0.22 * cell), int(mx - gap * cell), int(my + 0.22 * cell)


def _runs(mask) -> list[tuple[int, int]]:
    runs, start = [], None
    for i, on in enumerate([*mask, False]):
        if on and start is None:
            start = i
        elif not on and start is not None:
            runs.append((start, i))
            start = None
    return runs


def value_image(gray, box):
    """The value line inside `box`, cropped to its ink and scaled to LINE_H x LINE_W (zeros if none)."""
    import numpy as np
    from PIL import Image
    from scipy.ndimage import gaussian_filter

    x0, y0, x1, y1 = (max(0, v) for v in box)
    region = gray[y0:y1, x0:x1]
    out = np.zeros((LINE_H, LINE_W), dtype=np.float32)
    if region.size == 0:
        return out
    ink = region > INK
    lines = [r for r in _runs(ink.any(axis=1)) if 4 <= r[1] - r[0] <= 16]
    if not lines:
        return out
    r0, r1 = lines[-1]
    cols = [c for c in _runs(ink[r0:r1].any(axis=0))]
    # drop stray strokes far from the text (a neighbour's wire entering the box)
    c0, c1 = cols[0][0], cols[-1][1]
    line = region[r0:r1, c0:c1]
    h, w = line.shape
    width = min(LINE_W, max(1, round(w * LINE_H / h)))
    img = Image.fromarray((line * 255).astype("uint8")).resize((width, LINE_H), Image.BILINEAR)
    start = (LINE_W - width) // 2
    out[:, start:start + width] = np.asarray(img, dtype=np.float32) / 255.0
    return gaussian_filter(out, 0.8)  # tolerate a pixel of misalignment between exemplars
