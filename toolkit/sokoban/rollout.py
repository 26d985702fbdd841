"""Greedy batched rollouts of an agent, with thinking steps, state traces and cell-state interventions.

Thinking (`think` k): `noop` (the official protocol) forces k counted no-op env steps first; `free` runs k
extra forward passes on the first observation without stepping the env.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from toolkit.core.errors import InputError
from toolkit.sokoban.drc import DRCAgent
from toolkit.sokoban.env import CAP, BatchEnv
from toolkit.sokoban.levels import Level


@dataclass
class Episode:
    level_id: str
    solved: bool = False
    steps: int = 0
    actions: list[int] = field(default_factory=list)
    players: list[tuple[int, int]] = field(default_factory=list)  # before each action, then the last square
    pushes: list[int] = field(default_factory=list)  # per action: flat square a box left, or -1
    obs: list[np.ndarray] = field(default_factory=list)
    states: list[np.ndarray] = field(default_factory=list)  # per step: (ticks, 2, D, C, H, W) float16


@dataclass
class Intervention:
    """Per env: deltas (D, C, H, W) added to c after the gates, every tick.

    `deltas` stay on for the whole episode unless `stop_on_push` (then they stop at the agent's first push).
    `route` (optional, same shape) is added as well until the agent stands on one of its env's `route_squares`
    (checked before every step, as the official run_agent_interv_exps.py does), then it stops for good."""

    deltas: torch.Tensor  # (B, D, C, H, W)
    layer: int
    stop_on_push: bool = True
    route: torch.Tensor | None = None
    route_squares: list[set[tuple[int, int]]] | None = None

    def batch(self, start: int, stop: int) -> Intervention:
        return Intervention(self.deltas[start:stop], self.layer, self.stop_on_push,
                            None if self.route is None else self.route[start:stop],
                            None if self.route_squares is None else self.route_squares[start:stop])


def rollout(agent: DRCAgent, levels: list[Level], think: int = 0, mode: str = "noop", cap: int = CAP,
            keep_obs: bool = False, keep_states: bool = False, max_state_steps: int | None = None,
            intervention: Intervention | None = None, batch: int = 64) -> list[Episode]:
    if think < 0:
        raise InputError(f"--think {think}: must be >= 0")
    if mode not in ("noop", "free"):
        raise InputError(f"--think-mode {mode}: expected noop or free")
    out: list[Episode] = []
    for start in range(0, len(levels), batch):
        chunk = levels[start:start + batch]
        sub = None
        if intervention is not None:
            sub = intervention.batch(start, start + batch)
        out.extend(_rollout_batch(agent, chunk, think, mode, cap, keep_obs, keep_states, max_state_steps, sub))
    return out


@torch.no_grad()
def _rollout_batch(agent, levels, think, mode, cap, keep_obs, keep_states, max_state_steps, iv):
    n = len(levels)
    env = BatchEnv(levels, n, sample=False, cap=cap)
    eps = [Episode(lv.id) for lv in levels]
    done = np.zeros(n, bool)
    active = torch.ones(n, dtype=torch.bool)
    route_on = torch.ones(n, dtype=torch.bool)
    state = agent.initial_state(n)
    hook = None
    live = torch.arange(n)  # envs still playing: finished ones leave the batch
    if iv is not None:
        def hook(tick, layer, c):
            if layer != iv.layer:
                return c
            c = c + iv.deltas[live, layer] * active[live].view(-1, 1, 1, 1).float()
            if iv.route is not None:
                c = c + iv.route[live, layer] * (active & route_on)[live].view(-1, 1, 1, 1).float()
            return c
    if mode == "free" and think:
        obs = torch.from_numpy(env.observe().copy())
        for _ in range(think):
            _, _, state = agent(obs, state, hook=hook)
    step = 0
    while not done.all():
        obs_np = env.observe().copy()
        live = torch.from_numpy(np.flatnonzero(~done))
        if iv is not None and iv.route_squares is not None:
            for b in live.tolist():
                if (int(env.players[b, 0]), int(env.players[b, 1])) in iv.route_squares[b]:
                    route_on[b] = False
        trace = [] if keep_states and (max_state_steps is None or step < max_state_steps) else None
        logits, _, sub = agent(torch.from_numpy(obs_np)[live], state[live], hook=hook, trace=trace)
        state[live] = sub
        actions = np.zeros(n, np.int64)
        actions[live.numpy()] = logits.argmax(-1).numpy()
        if trace is not None:
            full = [torch.zeros((n,) + t.shape[1:]) for t in trace]
            for f, t in zip(full, trace, strict=False):
                f[live] = t
            trace = full
        if mode == "noop" and step < think:
            actions = np.zeros(n, np.int64)
        before = env.players.copy()
        boxes_before = env.boxes.copy()
        rewards, term, trunc = env.step(actions, auto_reset=False)
        for b in np.flatnonzero(~done):
            e = eps[b]
            e.players.append((int(before[b, 0]), int(before[b, 1])))
            e.actions.append(int(actions[b]))
            moved_box = np.flatnonzero((boxes_before[b] & ~env.boxes[b]).ravel())
            e.pushes.append(int(moved_box[0]) if len(moved_box) else -1)
            if keep_obs:
                e.obs.append(obs_np[b])
            if trace is not None:
                e.states.append(torch.stack([t[b] for t in trace]).numpy().astype(np.float16))
            e.steps += 1
            if term[b] or trunc[b]:
                e.solved = bool(term[b])
                e.players.append((int(env.players[b, 0]), int(env.players[b, 1])))
                done[b] = True
        if iv is not None and iv.stop_on_push:
            pushed = torch.from_numpy(np.array([e.pushes[-1] >= 0 if e.pushes else False for e in eps]))
            active &= ~pushed
        step += 1
    return eps
