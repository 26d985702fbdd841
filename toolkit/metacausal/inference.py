"""From (x, y) to mechanisms: EM restarts at every K' = 1..kmax, then K chosen by each selection rule."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from toolkit.metacausal.em import MechanismFit, as_fit, draw_starts, restarts_fast
from toolkit.metacausal.mixture import MixtureFit, fit_mixture
from toolkit.metacausal.select import AdCheck, ad_check, select

# single-restart success rates at imbalance 0.2 (out of 5000 runs), from the benchmark: restarts = ceil(ln .05/ln(1-p))
OFFICIAL_SUCCESS = {1: 4219 / 5000, 2: 1567 / 5000, 3: 555 / 5000, 4: 84 / 5000}
POLISH_TOP = 5  # the best hard-EM restarts each polished into a soft mixture


def official_restarts(k: int) -> int:
    return math.ceil(math.log(0.05) / math.log(1 - OFFICIAL_SUCCESS[k]))


INITS = ("pairs", "ransac")


def draw_init(x: np.ndarray, y: np.ndarray, k: int, restarts: int, rng: np.random.Generator, init: str) -> np.ndarray:
    """R x K x 2 start points: K random disjoint pairs (the benchmark's), or K RANSAC-chosen lines."""
    if init == "ransac":
        from toolkit.metacausal.ransac import ransac_starts

        return ransac_starts(x, y, k, restarts, rng)
    return draw_starts(len(x), k, restarts, rng)


def restart_plan(kmax: int, restarts: str | int) -> list[int]:
    if restarts == "official":
        return [official_restarts(k) for k in range(1, kmax + 1)]
    return [int(restarts)] * kmax


@dataclass
class Inference:
    x: np.ndarray
    y: np.ndarray
    fits: list[MechanismFit]  # best hard-EM fit per K' = 1..kmax
    checks: list[AdCheck]
    mixtures: list[MixtureFit]
    choice: dict[str, tuple[int | None, int]] = field(default_factory=dict)  # method -> (K' index, K-hat)


def fit_k(job: tuple) -> tuple[MechanismFit, MixtureFit]:
    """One K': all restarts, the best by hard score, and the best soft mixture among the top restarts."""
    x, y, k, starts, engine = job
    if engine == "reference":
        from toolkit.metacausal.em_reference import restarts_reference

        params, scores = restarts_reference(x, y, k, starts)
    else:
        params, scores = restarts_fast(x, y, k, starts)
    best = int(np.argmax(scores))
    hard = as_fit(x, y, params[best], scores[best])
    mixture = None
    order = np.argsort(-scores, kind="stable")
    seen: list[np.ndarray] = []
    for r in order:
        if len(seen) >= POLISH_TOP:
            break
        if any(np.allclose(params[r], s, atol=1e-6) for s in seen):
            continue
        seen.append(params[r])
        candidate = fit_mixture(x, y, params[r], as_fit(x, y, params[r], scores[r]).labels)
        if mixture is None or candidate.loglik > mixture.loglik:
            mixture = candidate
    return hard, mixture


def infer(x: np.ndarray, y: np.ndarray, kmax: int, restarts: str | int, rng: np.random.Generator,
          methods: tuple[str, ...] = ("ad",), engine: str = "fast", workers: int = 1,
          ray_address: str | None = None, init: str = "pairs") -> Inference:
    """Starts are drawn from `rng` for K' = 1..kmax in order, as the benchmark draws them."""
    from toolkit.core.parallel import map_jobs

    x = np.ascontiguousarray(x, np.float64)
    y = np.ascontiguousarray(y, np.float64)
    jobs = [(x, y, k, draw_init(x, y, k, r, rng, init), engine)
            for k, r in zip(range(1, kmax + 1), restart_plan(kmax, restarts), strict=True)]
    results = map_jobs(fit_k, jobs, workers=workers, ray_address=ray_address, description="K'")
    fits = [r[0] for r in results]
    mixtures = [r[1] for r in results]
    checks = [ad_check(x, y, f) for f in fits]
    out = Inference(x, y, fits, checks, mixtures)
    for m in methods:
        out.choice[m] = select(m, checks, mixtures)
    return out
