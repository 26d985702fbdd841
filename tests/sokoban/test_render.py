"""Plan GIFs: one frame per (step, tick), arrows drawn exactly on the squares the plan marks."""

from __future__ import annotations

import numpy as np

from toolkit.sokoban.env import BatchEnv
from toolkit.sokoban.render import CELL, frame, obs_rows, write_gif


def test_obs_rows_round_trip(one_push):
    obs = BatchEnv([one_push], 1, sample=False).observe()[0]
    assert obs_rows(obs) == [row[1:-1] for row in one_push.rows()[1:-1]]


def test_gif_frames_and_arrows(one_push, tmp_path):
    from PIL import Image

    rows = obs_rows(BatchEnv([one_push], 1, sample=False).observe()[0])
    H, W = len(rows), len(rows[0])
    plan = np.zeros((H, W), int)
    plan[1, 2] = 4  # RIGHT on an empty floor square
    frames = [frame(rows, plan, "t0"), frame(rows, np.zeros_like(plan), "t0")]
    write_gif(frames, tmp_path / "p.gif")
    gif = Image.open(tmp_path / "p.gif")
    assert gif.n_frames == 2
    img = np.asarray(frames[0].convert("RGB")).astype(int)
    empty = np.asarray(frames[1].convert("RGB")).astype(int)
    red = (img[..., 0] > 150) & (img[..., 1] < 80) & (img[..., 2] < 80)
    changed = np.argwhere((img != empty).any(-1))
    assert red.sum() > 10
    ys, xs = changed[:, 0], changed[:, 1]
    assert ys.min() >= 1 * CELL and ys.max() < 2 * CELL and xs.min() >= 2 * CELL and xs.max() < 3 * CELL
    # the arrow points right: more red in the square's right half than its left
    sq = red[CELL:2 * CELL, 2 * CELL:3 * CELL]
    assert sq[:, CELL // 2:].sum() > sq[:, :CELL // 2].sum()
