"""The stress system's regions record and figure (paper Fig. 2), with states learned from fresh noisy runs."""

from __future__ import annotations

import numpy as np

from toolkit.core.records import make_record
from toolkit.metacausal import stress


def regions_record(runs: int, steps: int, noise: float, seed: int, png) -> dict:
    points = stress.fixed_points()
    s, e, states = stress.region_grid()
    fields = {
        "fixed_points": [{"u": round(p.u, 6), "slope": round(p.slope, 4), "stable": p.stable} for p in points],
        "tipping_mix": round(stress.tipping_mix(), 6),
        "boundary": {"stress_plus_half_external": round(stress.boundary_level(), 6)},
        "grid": {"stress_step": 0.1, "external_step": 0.2, "cells": int(states.size),
                 "reinforcing": int((states > 0).sum())},
    }
    learned = None
    if runs:
        from toolkit.core.extras import require

        require("causal", "sklearn")
        rng = np.random.default_rng(seed)
        sims = [stress.simulate(steps, noise, np.random.default_rng(rng.integers(2**63))) for _ in range(runs)]
        learned = stress.learned_states(sims)
        fields["learned"] = {"runs": runs, "steps": steps, "noise": noise, **learned,
                             "tipping_error": None if learned["tipping"] is None
                             else round(abs(learned["tipping"] - stress.tipping_mix()), 6)}
    if png is not None:
        draw(str(png), learned)
    return make_record("metacausal.regions", 1, system="stress", seed=seed, **fields)


def draw(path: str, learned: dict | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ss, ee = np.meshgrid(np.linspace(0, 1, 201), np.linspace(0, 1, 201), indexing="ij")
    ax1.contourf(ee, ss, stress.state_of(stress.mix(ss, ee)), levels=[-2, 0, 2], colors=["#c6dbef", "#fcae91"])
    s, e, states = stress.region_grid()
    gs, ge = np.meshgrid(s, e, indexing="ij")
    ax1.scatter(ge.ravel(), gs.ravel(), c=np.where(states.ravel() > 0, "#cb181d", "#2171b5"), s=14)
    level = stress.boundary_level()
    line_e = np.linspace(0, 1, 50)
    ax1.plot(line_e, level - 0.5 * line_e, "k--", label=f"s + 0.5 e = {level:.3f}")
    ax1.set_xlabel("external stress e")
    ax1.set_ylabel("stress level s")
    ax1.set_title(f"reinforcing (red) on {(states > 0).sum()} of {states.size} grid cells")
    ax1.legend(loc="lower left", fontsize=8)
    u = np.linspace(-0.1, 1.1, 400)
    ax2.plot(u, stress.sigma(u), label="sigma(u)")
    ax2.plot(u, u, "k:", label="identity")
    for p in stress.fixed_points():
        ax2.plot([p.u], [p.u], "o", color="k" if p.stable else "w", markeredgecolor="k")
    if learned and learned["tipping"] is not None:
        ax2.axvline(learned["tipping"], color="#cb181d", lw=1, label=f"learned tipping {learned['tipping']:.3f}")
    ax2.set_xlabel("u = 0.95 min(s + 0.5 e, 1)")
    ax2.set_ylabel("next stress")
    ax2.set_title("fixed points (filled: stable)")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
