"""`simulate`: sample records for the three systems, and their CSV form."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from toolkit.core.errors import InputError
from toolkit.metacausal.records import sample_records


def simulate_system(system: str, seed: int, *, k: int = 2, imbalance: float = 0.2, policy: str = "markov",
                    stay: float = 0.98, steps: int = 2000, noise: float = 0.01) -> list[dict]:
    rng = np.random.default_rng(seed)
    if system == "linear":
        from toolkit.metacausal.generate import sample_linear

        p = sample_linear(k, rng, imbalance)
        names = [f"m{m}" for m in p.mechanism]
        return sample_records(p.x, p.y, np.arange(p.x.size), None, names, p.mechanism, "linear")
    if system == "agents":
        from toolkit.metacausal.agents import STATES, simulate

        if policy not in ("markov", "threshold"):
            raise InputError(f"--policy {policy!r}: choose markov or threshold")
        r = simulate(steps, policy, stay, rng)
        return sample_records(r.x, r.y, r.t, r.environment, r.state, [STATES.index(s) for s in r.state], "agents")
    if system == "stress":
        from toolkit.metacausal.stress import simulate

        r = simulate(steps, noise, rng)
        names = ["reinforcing" if s > 0 else "relaxing" for s in r.state]
        return sample_records(r.mixed, r.stress, r.t, r.external, names, (r.state > 0).astype(int), "stress")
    raise InputError(f"simulate {system!r}: choose linear, agents or stress")


def write_csv(records: list[dict], path: Path) -> None:
    try:
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["x", "y", "t", "environment"])
            for r in records:
                writer.writerow([r["x"], r["y"], r["t"], "" if r["environment"] is None else r["environment"]])
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror})") from None
