"""The AHA grid: rows = views, columns = keyframes, numbered cells, later cells white."""

import numpy as np
from PIL import Image

from toolkit.failgen.grid import GAP, ROWS, compose_grid, is_white, trim_future


def cell(img: np.ndarray, row: int, col: int, size: int) -> np.ndarray:
    y, x = GAP + row * (size + GAP), GAP + col * (size + GAP)
    return img[y:y + size, x:x + size]


def test_grid_shape_and_white_future_cells():
    size = 32
    cols = [{v: np.full((size, size, 3), 40 + 30 * k, np.uint8) for v in ROWS} for k in range(5)]
    img = np.asarray(compose_grid(cols, upto=2, total=5, size=size))
    assert img.shape == (3 * size + 4 * GAP, 5 * size + 6 * GAP, 3)
    for r in range(3):
        for k in range(5):
            c = cell(img, r, k, size)
            assert is_white(c) == (k > 2)
            if k <= 2:
                assert (c[20:, 20:] == 40 + 30 * k).all()     # the picture itself
                assert (c[1:8, 1:4] != 40 + 30 * k).any()      # the number tag top-left


def test_grid_pads_unrun_columns():
    size = 16
    cols = [{v: np.zeros((size, size, 3), np.uint8) for v in ROWS}]
    img = np.asarray(compose_grid(cols, upto=0, total=3, size=size))
    assert img.shape[1] == 3 * size + 4 * GAP
    assert not is_white(cell(img, 0, 0, size)) and is_white(cell(img, 2, 2, size))


def test_trim_future_makes_long_and_short_tasks_look_alike():
    size = 32
    cols = [{v: np.full((size, size, 3), 40 + 15 * k, np.uint8) for v in ROWS} for k in range(13)]
    short, long_ = compose_grid(cols[:7], upto=3, total=7, size=size), compose_grid(cols, upto=3, total=13, size=size)
    a, b = np.asarray(trim_future(short)), np.asarray(trim_future(long_))
    assert a.shape == b.shape == (3 * size + 4 * GAP, 4 * (size + GAP) + GAP, 3) and (a == b).all()
    full = compose_grid(cols[:7], upto=6, total=7, size=size)
    assert trim_future(full) is full  # nothing blank to drop
    other = Image.new("RGB", (100, 40), "white")
    assert trim_future(other) is other  # not a grid of this layout


def test_regrid_resizes_each_view_and_keeps_tags_and_blank_cells():
    from toolkit.failgen.grid import grid_layout, regrid

    size = 32
    cols = [{v: np.full((size, size, 3), 40 + 30 * k + 5 * r, np.uint8) for r, v in enumerate(ROWS)}
            for k in range(4)]
    src = compose_grid(cols, upto=2, total=4, size=size)
    assert grid_layout(*src.size) == (size, 4)
    for new in (16, 64):
        out = regrid(src, new)
        img = np.asarray(out)
        assert grid_layout(*out.size) == (new, 4)
        same = np.asarray(compose_grid([{v: np.asarray(Image.fromarray(c[v]).resize((new, new))) for v in ROWS}
                                        for c in cols[:3]], upto=2, total=4, size=new))
        assert (img == same).all()  # flat views: exactly the grid drawn at the new size, tags included
        assert is_white(cell(img, 1, 3, new)) and not is_white(cell(img, 1, 2, new))
    assert regrid(src, size) is src
    assert regrid(Image.new("RGB", (100, 40), "white"), 16) is None
    big = np.asarray(regrid(regrid(src, 64), size)).astype(int)
    assert np.abs(big - np.asarray(src).astype(int)).mean() < 1.0  # up and back down: the same grid
