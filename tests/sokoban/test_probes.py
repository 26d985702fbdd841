"""Probes: sklearn 1x1 = a 1x1 convolution with the same weights; planted signal found, shuffled labels at chance."""

from __future__ import annotations

import numpy as np
import torch

from toolkit.sokoban.probes import features, fit_probe, full_weights, predict, score


def _planted(seed=0, n=300, c=8):
    mix = np.random.default_rng(99).standard_normal((5, c)).astype(np.float32) * 3
    grid = np.random.default_rng(seed).standard_normal((n, c, 6, 6)).astype(np.float32)
    y = np.einsum("kc,nchw->nkhw", mix, grid).argmax(1)  # (n, 6, 6)
    return grid, y


def test_sklearn_1x1_equals_conv1x1():
    grid, y = _planted()
    clf = fit_probe(features(grid, 1), y.reshape(-1), 0, 5000)
    w, b = full_weights(clf)
    weight = torch.from_numpy(w)[:, :, None, None]
    conv = torch.nn.functional.conv2d(torch.from_numpy(grid), weight, torch.from_numpy(b))
    from_conv = conv.argmax(1).numpy().reshape(-1)
    x = features(grid, 1)
    assert np.array_equal(from_conv, clf.sklearn.predict((x - clf.mean) / clf.std))  # scaling folded exactly
    assert np.array_equal(from_conv, predict(w, b, x))


def test_planted_signal_and_shuffled_labels():
    grid, y = _planted()
    test_grid, test_y = _planted(seed=1)
    x = features(grid, 1)
    w, b = full_weights(fit_probe(x, y.reshape(-1), 0, 8000))
    assert score(test_y.reshape(-1), predict(w, b, features(test_grid, 1)))["macro_f1"] > 0.95
    shuffled = np.random.default_rng(3).permutation(y.reshape(-1))
    w, b = full_weights(fit_probe(x, shuffled, 0, 8000))
    assert score(test_y.reshape(-1), predict(w, b, features(test_grid, 1)))["macro_f1"] < 0.3


def test_3x3_features_are_zero_padded_neighbourhoods():
    grid = np.arange(2 * 1 * 3 * 3, dtype=np.float32).reshape(2, 1, 3, 3)
    f = features(grid, 3).reshape(2, 3, 3, 9)
    assert f[0, 1, 1].tolist() == grid[0, 0].reshape(-1).tolist()
    assert f[0, 0, 0].tolist()[:4] == [0, 0, 0, 0] and f[0, 0, 0, 4] == grid[0, 0, 0, 0]


def test_collect_in_chunks_matches_one_batch_and_keeps_the_last_tick(gen_levels):
    levels = [lv for lv, _, _ in gen_levels[:6]]
    from toolkit.sokoban.drc import AgentConfig, DRCAgent
    from toolkit.sokoban.probes import collect

    torch.manual_seed(0)
    agent = DRCAgent(AgentConfig(depth=2, ticks=2, channels=4, grid=(6, 6), hidden=16)).eval()
    whole = collect(agent, levels, 6, seed=3)
    chunked = collect(agent, levels, 6, seed=3, chunk=4)  # batches of 4 and 2
    assert whole.keys() == chunked.keys()
    for key in whole:
        np.testing.assert_allclose(whole[key], chunked[key], atol=1e-5, err_msg=key)
    steps = len(whole["episode"])
    assert whole["cell"].shape == (steps, 2, 4, 6, 6) and whole["hidden"].shape == whole["cell"].shape
    assert whole["obs"].shape[0] == steps == len(whole["CA"]) and sorted(set(whole["episode"])) == list(range(6))


def test_solved_only_keeps_the_steps_of_solved_episodes():
    import pytest

    from toolkit.core.errors import InputError
    from toolkit.sokoban.probes import solved_steps

    episode = np.array([0, 0, 1, 1, 1, 2])
    data = {"episode": episode, "solved": np.array([1, 0, 1], np.int8), "CA": np.arange(6)[:, None, None],
            "obs": np.arange(6, dtype=np.float16)[:, None, None, None]}
    kept = solved_steps(data, "d.safetensors")
    assert kept["episode"].tolist() == [0, 0, 2] and kept["CA"].ravel().tolist() == [0, 1, 5]
    assert kept["obs"].shape == (3, 1, 1, 1) and kept["solved"].tolist() == [1, 0, 1]
    with pytest.raises(InputError, match="d.safetensors: no solved episode"):
        solved_steps({**data, "solved": np.zeros(3, np.int8)}, "d.safetensors")


def test_official_conv_probe_finds_planted_signal_and_matches_its_conv():
    from toolkit.sokoban.probes import fit_conv_probe

    grid, y = _planted(n=100)
    test_grid, test_y = _planted(seed=1, n=100)
    w, b = fit_conv_probe(grid, y, kernel=1, seed=0, epochs=10, lr=0.1)  # few boards: a larger step
    assert not b.any()  # bias-free, as the official ConvProbe
    assert score(test_y.reshape(-1), predict(w, b, features(test_grid, 1)))["macro_f1"] > 0.9
    # torch.manual_seed(seed) fixes the initialisation and the shuffling
    first, again = (fit_conv_probe(grid, y, 1, seed=0, epochs=2)[0] for _ in range(2))
    assert np.array_equal(first, again)
    shuffled = np.random.default_rng(3).permutation(y.reshape(-1)).reshape(y.shape)
    w, b = fit_conv_probe(grid, shuffled, kernel=1, seed=0, epochs=10, lr=0.1)
    assert score(test_y.reshape(-1), predict(w, b, features(test_grid, 1)))["macro_f1"] < 0.3


def test_conv_probe_3x3_weights_follow_the_feature_order():
    from toolkit.sokoban.probes import fit_conv_probe

    grid, y = _planted(n=40)
    w, b = fit_conv_probe(grid, y, kernel=3, seed=1, epochs=1)
    conv_w = torch.from_numpy(w).reshape(5, 3, 3, grid.shape[1]).permute(0, 3, 1, 2)  # back to (5, F, 3, 3)
    logits = torch.nn.functional.conv2d(torch.from_numpy(grid), conv_w, padding=1)
    from_conv = logits.argmax(1).numpy().reshape(-1)
    assert np.array_equal(from_conv, predict(w, b, features(grid, 3)))


def test_tanh_cell_source_squashes_each_layers_cell_state():
    from toolkit.sokoban.probes import source_grid

    cell = np.random.default_rng(0).standard_normal((3, 2, 4, 6, 6)).astype(np.float16) * 4
    data = {"cell": cell, "hidden": np.zeros_like(cell), "obs": np.zeros((3, 7, 6, 6), np.float16)}
    for layer in (0, 1):
        np.testing.assert_allclose(source_grid(data, "tanh-cell", layer), np.tanh(cell[:, layer].astype(np.float32)))
        np.testing.assert_array_equal(source_grid(data, "cell", layer), cell[:, layer].astype(np.float32))


def test_a_linear_probe_on_tanh_cell_reads_a_squashed_signal_the_raw_cell_hides():
    """A class marked by a cell value's sign, where rare huge values swamp a linear read of the raw state."""
    from toolkit.sokoban.probes import source_grid

    rng = np.random.default_rng(5)

    def data(n):
        y = rng.integers(0, 2, (n, 6, 6))
        cell = (2 * y - 1)[:, None] * np.abs(rng.standard_normal((n, 1, 6, 6))) * 0.3
        cell = cell + rng.standard_normal((n, 1, 6, 6)) * (rng.random((n, 1, 6, 6)) < 0.2) * 40
        return {"cell": cell[:, None].astype(np.float32)}, y

    (train, y), (test, test_y) = data(300), data(200)
    f1 = {}
    for source in ("cell", "tanh-cell"):
        w, b = full_weights(fit_probe(features(source_grid(train, source, 0), 1), y.reshape(-1), 0, 10000))
        f1[source] = score(test_y.reshape(-1), predict(w, b, features(source_grid(test, source, 0), 1)))["macro_f1"]
    assert f1["tanh-cell"] > f1["cell"] + 0.05, f1
