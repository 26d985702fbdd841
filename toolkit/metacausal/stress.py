"""Stress that turns self-reinforcing past a tipping point (the paper's Fig. 2 system).

u_t = 0.95 * min(s_{t-1} + 0.5 e_t, 1) mixes the previous stress level s with external stress e; the next level is
s_t = sigma(u_t) with the tilted sigmoid sigma(u) = (1 / (1 + exp(-15 (u - 0.5))) - 0.5) * 1.01 + 0.5. Where
sigma(u) > u stress feeds itself (state +1, reinforcing); where sigma(u) < u it relaxes (state -1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

CARRY = 0.95
EXTERNAL_GAIN = 0.5
STEEPNESS = 15.0
CENTRE = 0.5
STRETCH = 1.01


def sigma(u):
    return (1.0 / (1.0 + np.exp(-STEEPNESS * (u - CENTRE))) - 0.5) * STRETCH + 0.5


def sigma_slope(u):
    p = np.exp(-STEEPNESS * (u - CENTRE))
    return STRETCH * STEEPNESS * p / (1.0 + p) ** 2


def mix(stress, external):
    """u: what the next step's sigmoid sees."""
    return CARRY * np.minimum(stress + EXTERNAL_GAIN * external, 1.0)


def state_of(u):
    """+1 reinforcing (sigma(u) > u), -1 relaxing."""
    return np.where(sigma(u) > u, 1, -1)


@dataclass
class FixedPoint:
    u: float
    slope: float  # sigma'(u): below 1 stable, above 1 unstable

    @property
    def stable(self) -> bool:
        return self.slope < 1.0


def fixed_points() -> list[FixedPoint]:
    """Roots of sigma(u) = u, found by bracketing sign changes on a fine grid."""
    grid = np.linspace(-0.5, 1.5, 20001)
    g = sigma(grid) - grid
    roots: list[FixedPoint] = []
    for i in np.nonzero(np.sign(g[:-1]) != np.sign(g[1:]))[0]:
        u = brentq(lambda v: float(sigma(v) - v), grid[i], grid[i + 1], xtol=1e-14)
        if not roots or abs(u - roots[-1].u) > 1e-9:  # a root on a grid point brackets twice
            roots.append(FixedPoint(float(u), float(sigma_slope(u))))
    return roots


def tipping_mix() -> float:
    """The unstable fixed point: the u at which stress turns self-reinforcing."""
    return next(p.u for p in fixed_points() if not p.stable)


def boundary_level() -> float:
    """The tipping boundary in (stress, external) space: s + 0.5 e = tipping / 0.95."""
    return tipping_mix() / CARRY


def region_grid(stress_step: float = 0.1, external_step: float = 0.2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """States on the (stress, external) grid over [0, 1] x [0, 1]: (stress values, external values, states)."""
    s = np.round(np.arange(0.0, 1.0 + 1e-9, stress_step), 10)
    e = np.round(np.arange(0.0, 1.0 + 1e-9, external_step), 10)
    ss, ee = np.meshgrid(s, e, indexing="ij")
    return s, e, state_of(mix(ss, ee))


@dataclass
class StressRun:
    t: np.ndarray
    external: np.ndarray
    mixed: np.ndarray  # u_t
    stress: np.ndarray  # s_t (observed, with noise)
    state: np.ndarray  # analytic state of u_t


def simulate(steps: int, noise: float, rng: np.random.Generator) -> StressRun:
    """External stress wanders in [-1, 1] (negative = relief, which lets stress fall back after tipping)."""
    external = np.empty(steps)
    mixed = np.empty(steps)
    stress = np.empty(steps)
    e, s = rng.uniform(-1, 1), rng.uniform(0, 1)
    for t in range(steps):
        e = float(np.clip(e + rng.normal(0.0, 0.15), -1.0, 1.0))
        u = float(mix(s, e))
        s = float(sigma(u) + rng.normal(0.0, noise))
        external[t], mixed[t], stress[t] = e, u, s
    return StressRun(np.arange(steps), external, mixed, stress, state_of(mixed))


def learned_states(runs: list[StressRun], neighbours: int = 15) -> dict:
    """Fit s_t - u_t on u_t with k nearest neighbours over all runs; compare its sign with the analytic state and
    read the tipping point as the upward sign change with the steepest flank (near the stable fixed points the
    curve hugs zero and noise makes spurious crossings)."""
    from sklearn.neighbors import KNeighborsRegressor

    u = np.concatenate([r.mixed for r in runs])
    d = np.concatenate([r.stress - r.mixed for r in runs])
    truth = np.concatenate([r.state for r in runs])
    model = KNeighborsRegressor(n_neighbors=neighbours).fit(u[:, None], d)
    predicted = np.where(model.predict(u[:, None]) > 0, 1, -1)
    grid = np.linspace(np.quantile(u, 0.01), np.quantile(u, 0.99), 2001)
    g = model.predict(grid[:, None])
    width = 100  # grid steps either side of a crossing (about 0.07 in u)
    best, tipping = -np.inf, None
    for i in np.nonzero((g[:-1] <= 0) & (g[1:] > 0))[0]:
        flank = g[i + 1:i + 1 + width].mean() - g[max(i + 1 - width, 0):i + 1].mean()
        if flank > best:
            best, tipping = flank, float(0.5 * (grid[i] + grid[i + 1]))
    return {"agreement": float(np.mean(predicted == truth)), "tipping": tipping, "samples": int(len(u))}
