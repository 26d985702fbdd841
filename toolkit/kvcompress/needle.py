"""Needle in a haystack: accuracy over a (context length x needle depth) grid, and its heatmap."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from toolkit.kvcompress.evaluate import accuracy
from toolkit.kvcompress.tasks import make_example


def needle_grid(model, lengths, depths, press, trials: int, seed: int, task: str = "single", on_cell=None):
    """(len(lengths), len(depths)) accuracy; every cell draws `trials` fresh needles at that depth."""
    rng = random.Random(seed)
    grid = np.zeros((len(lengths), len(depths)))
    for i, length in enumerate(lengths):
        for j, depth in enumerate(depths):
            examples = [make_example(rng, task, int(length), depth=float(depth)) for _ in range(trials)]
            grid[i, j], rows = accuracy(model, examples, press)
            if on_cell:
                on_cell(int(length), float(depth), float(grid[i, j]), rows)
    return grid


def save_heatmap(grid: np.ndarray, lengths, depths, title: str, png: str | Path) -> Path:
    """The usual needle heatmap: rows = context length, columns = depth, green = found."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(1.5 + 0.6 * len(depths), 1.2 + 0.45 * len(lengths)))
    im = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(depths)), [f"{d:.0%}" for d in depths])
    ax.set_yticks(range(len(lengths)), [str(n) for n in lengths])
    ax.set_xlabel("needle depth")
    ax.set_ylabel("context length (tokens)")
    ax.set_title(title, fontsize=9)
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=7)
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    fig.savefig(png, dpi=80)
    plt.close(fig)
    return png
