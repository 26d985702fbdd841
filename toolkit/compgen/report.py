"""`reason compgen report`: a table and figures (predicted vs observed) from compgen records."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np


def plot_predicted_vs_observed(points: dict[str, list[tuple[float, float]]], out: Path) -> Path:
    """Scatter of theory prediction (x) against observed output (y), one panel per group."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = sorted(points)
    fig, axes = plt.subplots(1, max(len(groups), 1), figsize=(3.2 * max(len(groups), 1), 3.2), squeeze=False)
    for ax, group in zip(axes[0], groups, strict=False):
        xy = np.array(points[group])
        ax.scatter(xy[:, 0], xy[:, 1], s=10)
        lo, hi = float(xy.min()), float(xy.max())
        ax.plot([lo, hi], [lo, hi], color="grey", lw=0.8)
        ax.set_title(group, fontsize=8)
        ax.set_xlabel("theory")
        ax.set_ylabel("observed")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def collect(records: list[dict]) -> tuple[list[dict], dict[str, list[tuple[float, float]]]]:
    """Summary rows and (theory, observed) pairs per group from compgen records."""
    rows, points = [], defaultdict(list)
    for rec in records:
        kind = rec.get("type", "")
        if kind in ("compgen.kernel", "compgen.theory", "compgen.nets"):
            rows.append(rec)
        if kind == "compgen.prediction" and "theory" in rec:
            points[f"{rec['task']} / {rec['source']}"].append((float(rec["theory"]), float(rec["prediction"])))
    return rows, dict(points)
