"""Two agents on a line (the paper's Fig. 1): B wanders, A switches between policies towards B.

x is A's position, y is B's. States and their mechanisms (Laplace noise of scale NOISE on the effect):
  follow: A = B + 2  (B -> A)      evade: A = -B  (B -> A)
  lead:   B = A + 2  (A -> B)      idle:  A = c   (no dependence)
The driver (B, or A while leading) does a bounded random walk. A switches state by a Markov chain that stays with
probability `stay`, or by thresholds on the environment (B's previous position) with a little hysteresis.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

STATES = ("follow", "evade", "lead", "idle")
NOISE = 0.3
STEP = 0.4
BOUND = 5.0
IDLE_AT = -3.0
# threshold policy: environment (B's last position) bands -> state, with hysteresis HYST
BANDS = ((-np.inf, -2.5, "evade"), (-2.5, 0.0, "idle"), (0.0, 2.5, "follow"), (2.5, np.inf, "lead"))
HYST = 0.3


@dataclass
class AgentRun:
    x: np.ndarray  # A
    y: np.ndarray  # B
    t: np.ndarray
    environment: np.ndarray  # B's previous position
    state: list[str]


def _reflect(v: float) -> float:
    if v > BOUND:
        return 2 * BOUND - v
    if v < -BOUND:
        return -2 * BOUND - v
    return v


def _band(env: float, current: str) -> str:
    for lo, hi, name in BANDS:
        if name == current and lo - HYST <= env < hi + HYST:
            return current  # stay until the environment leaves the band by more than HYST
    for lo, hi, name in BANDS:
        if lo <= env < hi:
            return name
    return current


def simulate(steps: int, policy: str, stay: float, rng: np.random.Generator) -> AgentRun:
    a = np.empty(steps)
    b = np.empty(steps)
    env = np.empty(steps)
    states: list[str] = []
    state = STATES[int(rng.integers(len(STATES)))]
    pos_a, pos_b = rng.uniform(-2, 2), rng.uniform(-2, 2)
    for t in range(steps):
        env[t] = pos_b
        if policy == "markov":
            if rng.uniform() >= stay:
                state = STATES[int(rng.choice([i for i, s in enumerate(STATES) if s != state]))]
        else:
            state = _band(pos_b, state)
        e = rng.laplace(0.0, NOISE)
        if state == "lead":
            pos_a = _reflect(pos_a + rng.normal(0.0, STEP))
            pos_b = pos_a + 2.0 + e
        else:
            pos_b = _reflect(pos_b + rng.normal(0.0, STEP))
            pos_a = {"follow": pos_b + 2.0, "evade": -pos_b, "idle": IDLE_AT}[state] + e
        a[t], b[t] = pos_a, pos_b
        states.append(state)
    return AgentRun(a, b, np.arange(steps), env, states)


def mechanism_of(state: str) -> dict:
    """The true mechanism of a state, in the fit record's terms (direction 0: x -> y)."""
    return {
        "follow": {"slope": 1.0, "intercept": 2.0, "direction": "y->x"},
        "evade": {"slope": -1.0, "intercept": 0.0, "direction": "y->x"},
        "lead": {"slope": 1.0, "intercept": 2.0, "direction": "x->y"},
        "idle": {"slope": 0.0, "intercept": IDLE_AT, "direction": "y->x"},
    }[state]
