"""`reason kvcompress needle`: one record per (length, depth) cell and a heatmap PNG."""

import json

import numpy as np


def test_needle_grid_writes_cells_and_a_heatmap(reason, task_model_dir, tmp_path):
    png = tmp_path / "needle.png"
    proc = reason("--seed", "3", "kvcompress", "needle", "--model", str(task_model_dir), "--method", "quest",
                  "--budget", "24", "--page-size", "4", "--lengths", "64,96", "--depths", "0,1", "--trials", "1",
                  "--dense-layers", "0", "--heatmap", str(png))
    assert proc.returncode == 0, proc.stderr
    cells = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(c["length"], c["depth"]) for c in cells] == [(64, 0.0), (64, 1.0), (96, 0.0), (96, 1.0)]
    assert all(c["type"] == "kvcompress.needle" and c["accuracy"] in (0.0, 1.0) for c in cells)
    assert all(0 < c["attended_fraction"] < 1 for c in cells)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = reason("kvcompress", "needle", "--model", str(task_model_dir), "--depths", "0.5,2")
    assert bad.returncode == 2 and "--depths 0.5,2: expected numbers in [0, 1]" in bad.stderr


def test_heatmap_shape_follows_the_grid(tmp_path):
    from toolkit.kvcompress.needle import save_heatmap

    out = save_heatmap(np.array([[1.0, 0.5], [0.0, 1.0]]), [64, 128], [0.0, 1.0], "t", tmp_path / "h.png")
    assert out.stat().st_size > 1000
