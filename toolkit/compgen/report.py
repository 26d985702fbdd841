"""`reason compgen report`: a table and figures (predicted vs observed) from compgen records."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from toolkit.core.errors import InputError


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
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=110)
    except ValueError as exc:  # an image format matplotlib does not know, from the file name
        raise InputError(f"--png {out}: {exc}") from None
    except FileExistsError:
        raise InputError(f"--png {out}: cannot write (a parent is a file, not a folder)") from None
    except OSError as exc:
        raise InputError(f"--png {out}: cannot write ({exc.strerror})") from None
    finally:
        plt.close(fig)
    return out


def _is_number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def record_problem(rec: dict) -> str | None:
    """What would stop `collect` from using a compgen record (field named), or None."""
    kind = rec.get("type", "")
    if kind == "compgen.prediction" and "theory" in rec:
        for key in ("task", "source"):
            if not isinstance(rec.get(key), str):
                return f"field '{key}': expected a string"
        for key in ("theory", "prediction"):
            if not _is_number(rec.get(key)):
                return f"field '{key}': expected a number"
    elif kind in ("compgen.kernel", "compgen.theory", "compgen.nets"):
        if not isinstance(rec.get("task"), str):
            return "field 'task': expected a string"
        stats = rec.get("net", rec)
        if not isinstance(stats, dict):
            return "field 'net': expected an object"
        for key in ("train_mse", "test_mse", "test_accuracy"):
            if stats.get(key) is not None and not _is_number(stats[key]):
                return f"field '{key}': expected a number"
        agreement = rec.get("agreement_ntk", {})
        if not isinstance(agreement, dict) or (agreement.get("corr") is not None
                                               and not _is_number(agreement["corr"])):
            return "field 'agreement_ntk': expected an object with a numeric 'corr'"
    return None


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
