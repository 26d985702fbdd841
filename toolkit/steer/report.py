"""Rich tables for humans (stderr)."""

from __future__ import annotations

from rich.table import Table

from toolkit.core.console import console


def sweep_table(points: list[dict], choices: list[dict]) -> None:
    table = Table(title="steer sweep")
    for col in ("family", "split", "layer", "alpha", "accuracy", "KL [nats]", "entropy [bits]"):
        table.add_column(col, justify="right" if col not in ("family", "split") else "left")
    for p in points:
        table.add_row(p["family"], p["split"], str(p["layer"]), f"{p['alpha']:+.3g}", f"{p['accuracy']:.3f}",
                      f"{p['kl_nats']:.4f}", f"{p['entropy_bits']:.3f}")
    console.print(table)
    chosen = Table(title="alpha chosen on validation, reported on test")
    for col in ("family", "layer", "alpha", "val acc", "test acc (alpha=0)", "test acc (chosen)", "gain",
                "fixed/broken", "McNemar p"):
        chosen.add_column(col)
    for c in choices:
        chosen.add_row(c["family"], str(c["layer"]), f"{c['alpha']:+.3g}", f"{c['validation_accuracy']:.3f}",
                       f"{c['test_accuracy_base']:.3f}", f"{c['test_accuracy_steered']:.3f}", f"{c['test_gain']:+.3f}",
                       f"{c['test_fixed']}/{c['test_broken']}", f"{c['test_mcnemar_p']:.3g}")
    console.print(chosen)
