"""PNG of a sweep: accuracy, KL(P_0 || P_alpha) and entropy against alpha, one line per family/split."""

from __future__ import annotations

from pathlib import Path


def plot_sweep(points: list[dict], path: str | Path, title: str = "") -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups: dict[tuple, list[dict]] = {}
    for p in points:
        groups.setdefault((p["family"], p["split"], p["layer"]), []).append(p)
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    panels = (("accuracy", "accuracy"), ("kl_nats", "KL(P0 || Pa) [nats]"), ("entropy_bits", "entropy [bits]"))
    colors = {k: f"C{i % 10}" for i, k in enumerate(sorted({(f, la) for f, _, la in groups}))}
    for (family, split, layer), pts in sorted(groups.items()):
        pts = sorted(pts, key=lambda q: q["alpha"])
        xs = [q["alpha"] for q in pts]
        style = "-" if split == "test" else "--"
        for ax, (key, _) in zip(axes, panels, strict=True):
            ax.plot(xs, [q[key] for q in pts], style, color=colors[(family, layer)], marker="o", ms=3,
                    label=f"{family} {split} L{layer}")
    for ax, (_, label) in zip(axes, panels, strict=True):
        ax.set_xlabel("alpha")
        ax.set_ylabel(label)
        ax.axvline(0, color="grey", lw=0.5)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    out = Path(path)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=110)
    except OSError as exc:
        from toolkit.core.errors import InputError

        raise InputError(f"--plot {out}: cannot write ({exc.strerror or exc})") from None
    finally:
        plt.close(fig)
    return out
