"""The bidirectionality index sees plan squares that appear next to boxes and targets, and not shuffled ones."""

from __future__ import annotations

import numpy as np

from toolkit.sokoban.bidirectional import index


def test_index_counts_squares_next_to_boxes_and_targets():
    obs = np.zeros((1, 7, 5, 5), np.float32)
    obs[0, 1] = 1
    obs[0, 1, 2, 0], obs[0, 2, 2, 0] = 0, 1  # a box at (2,0)
    obs[0, 1, 2, 4], obs[0, 6, 2, 4] = 0, 1  # a target at (2,4)
    labels = np.zeros((1, 5, 5), np.int64)
    labels[0, 2, :4] = 4  # the box is pushed right along row 2
    preds = np.zeros((3, 1, 5, 5), np.int64)
    preds[1, 0, 2, 1] = 4  # tick 1: the square next to the box
    preds[2, 0, 2, 1] = preds[2, 0, 2, 3] = 4  # tick 2: and the square next to the target
    rows = index(preds, labels, obs)
    assert rows[0]["newly_correct"] == 1 and rows[0]["near_box"] == 1.0 and rows[0]["near_target"] == 0.0
    assert rows[1]["newly_correct"] == 1 and rows[1]["near_target"] == 1.0 and rows[1]["near_box"] == 0.0
