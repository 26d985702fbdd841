"""Bar chart of group means with their bootstrap 95% CIs."""

from __future__ import annotations

from pathlib import Path


def plot_groups(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(result["groups"])
    means = [result["groups"][g]["mean"] for g in names]
    lo = [m - result["groups"][g]["ci95"][0] for g, m in zip(names, means, strict=True)]
    hi = [result["groups"][g]["ci95"][1] - m for g, m in zip(names, means, strict=True)]
    fig, ax = plt.subplots(figsize=(1.5 + len(names), 3))
    ax.bar(names, means, yerr=[lo, hi], capsize=4, color="#4c72b0")
    ax.set_ylim(0, 1)
    ax.set_ylabel("self-report score (1 = policy)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
