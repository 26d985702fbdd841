"""The AHA grid image: rows = camera views, columns = keyframes, each cell numbered top-left.

The default format is the official one (NVlabs/AHA make_json.py's question: "the top row is the
front view; the middle row is the wrist view, and the bottom is the overhead view"; "the white grid
represents future sub-tasks that has yet to happen and should be ignore"): rows front, wrist,
overhead, and the cells of keyframes after the sub-task in question left white. Options: the
earlier row order front, overhead, wrist (LEGACY_ROWS, what the shipped detector was trained on)
and future columns trimmed off ("trim").
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

OFFICIAL_ROWS = ("front", "wrist", "overhead")
LEGACY_ROWS = ("front", "overhead", "wrist")
ROWS = OFFICIAL_ROWS  # the default row order
FUTURES = ("white", "trim")  # future cells: kept white (default) or trimmed off the grid
GAP = 2


def parse_rows(text: str | list | tuple, where: str = "--grid-rows") -> tuple[str, ...]:
    """A row order given as 'front,wrist,overhead' (or a list): a permutation of the three views."""
    from toolkit.core.errors import InputError

    rows = tuple(v.strip() for v in (text.split(",") if isinstance(text, str) else text))
    if sorted(rows) != sorted(ROWS):
        raise InputError(f"{where}: {','.join(map(str, rows))} is not an order of the views {','.join(ROWS)}")
    return rows


def reorder_rows(img: Image.Image, src: tuple[str, ...], dst: tuple[str, ...]) -> Image.Image:
    """The grid with its view rows moved from order `src` to order `dst` (number tags move with their
    row: every row of a column carries the same one). Not a grid of this layout: unchanged."""
    layout = grid_layout(*img.size)
    if layout is None or tuple(src) == tuple(dst):
        return img
    size = layout[0]
    pixels = np.asarray(img.convert("RGB"))
    out = pixels.copy()
    for r, view in enumerate(dst):
        s = src.index(view)
        out[GAP + r * (size + GAP):GAP + r * (size + GAP) + size] = pixels[GAP + s * (size + GAP):
                                                                         GAP + s * (size + GAP) + size]
    return Image.fromarray(out)


def compose_grid(columns: list[dict[str, np.ndarray] | None], upto: int, total: int, size: int,
                 rows: tuple[str, ...] = ROWS) -> Image.Image:
    """columns[k][view] is an (size, size, 3) image; columns after `upto` (and missing ones) stay white;
    `rows` gives the views top to bottom."""
    width = total * size + (total + 1) * GAP
    height = len(rows) * size + (len(rows) + 1) * GAP
    canvas = np.full((height, width, 3), 255, dtype=np.uint8)
    for k in range(min(upto + 1, len(columns))):
        images = columns[k]
        if images is None:
            continue
        for r, view in enumerate(rows):
            y, x = GAP + r * (size + GAP), GAP + k * (size + GAP)
            canvas[y:y + size, x:x + size] = images[view]
    img = Image.fromarray(canvas)
    draw = ImageDraw.Draw(img)
    for k in range(total):
        for r in range(len(rows)):
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


def trim_future(img: Image.Image) -> Image.Image:
    """The grid without its trailing blank (future) columns, so grids of long and short tasks
    show the same layout up to the current keyframe. Images that are not grids of this layout
    come back unchanged."""
    layout = grid_layout(*img.size)
    if layout is None:
        return img
    size, total = layout
    height = img.size[1]
    pixels = np.asarray(img.convert("RGB"))
    last = total - 1
    while last > 0:
        x = GAP + last * (size + GAP)
        if not all(is_white(pixels[y:y + size, x:x + size]) for y in range(GAP, height - size, size + GAP)):
            break
        last -= 1
    if last == total - 1:
        return img
    return img.crop((0, 0, GAP + (last + 1) * (size + GAP), height))


def grid_layout(width: int, height: int) -> tuple[int, int] | None:
    """(view size, columns) of a grid image of this layout with these pixel dimensions, else None."""
    size = (height - (len(ROWS) + 1) * GAP) // len(ROWS)
    if size <= 12 or height != len(ROWS) * size + (len(ROWS) + 1) * GAP or (width - GAP) % (size + GAP):
        return None
    return size, (width - GAP) // (size + GAP)


def _tag_box(label: str) -> tuple[int, int]:
    """(height, width) in px of the number tag compose_grid draws top-left of a cell."""
    return 12, 7 * len(label) + 4


def regrid(img: Image.Image, size: int) -> Image.Image | None:
    """The same grid drawn with `size`-px views: each view tile is resized on its own (its number tag
    painted out first, then drawn again at the new size), blank cells stay blank. None when the image
    is not a grid of this layout."""
    layout = grid_layout(*img.size)
    if layout is None:
        return None
    src, total = layout
    if src == size:
        return img
    pixels = np.asarray(img.convert("RGB"))
    columns: list[dict[str, np.ndarray] | None] = []
    upto = 0
    for k in range(total):
        x = GAP + k * (src + GAP)
        tiles = [pixels[GAP + r * (src + GAP):GAP + r * (src + GAP) + src, x:x + src] for r in range(len(ROWS))]
        if all(is_white(t) for t in tiles):
            columns.append(None)
            continue
        upto = k
        columns.append({view: _resize_tile(tile, str(k), size) for view, tile in zip(ROWS, tiles, strict=True)})
    return compose_grid(columns, upto, total, size)


def _resize_tile(tile: np.ndarray, label: str, size: int) -> np.ndarray:
    tag_h, tag_w = _tag_box(label)
    clean = tile.copy()
    if tile.shape[0] > tag_h + 1:  # the tag's pixels say nothing about the scene: repeat the row below it
        clean[:tag_h, :tag_w] = tile[tag_h:tag_h + 1, :tag_w]
    return np.asarray(Image.fromarray(clean).resize((size, size), Image.Resampling.BICUBIC))
