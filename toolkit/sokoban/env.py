"""Batched Sokoban in numba (the rules of Boxoban's sokoban.cpp on border-stripped interiors).

Observation: 7 one-hot channels [wall, floor, box, box-on-target, agent, agent-on-target, target].
Actions: 0 noop, 1 up, 2 down, 3 left, 4 right. Reward: -0.01 per step, +1 box onto a target,
-1 box off a target, +10 when every box is on a target (episode ends); truncated at `cap` steps.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from toolkit.sokoban.levels import Level, stack

N_CHANNELS = 7
N_ACTIONS = 5
CHANNELS = ["wall", "floor", "box", "box_on_target", "agent", "agent_on_target", "target"]
ACTIONS = ["noop", "up", "down", "left", "right"]
DR = np.array([0, -1, 1, 0, 0], dtype=np.int64)
DC = np.array([0, 0, 0, -1, 1], dtype=np.int64)
STEP_PENALTY, BOX_ON, BOX_OFF, SOLVED = -0.01, 1.0, -1.0, 10.0
CAP = 120


@njit(cache=True)
def _step_at(walls, targets, boxes, players, b, action):
    """Apply one action to env b of a batch in place; returns (reward, solved, pushed-from flat index or -1).

    Indexes the (B, H, W) arrays directly: slicing out per-env views cost more than the rules themselves."""
    h, w = walls.shape[1], walls.shape[2]
    reward = STEP_PENALTY
    pushed = -1
    if action != 0:
        dr, dc = DR[action], DC[action]
        r, c = players[b, 0] + dr, players[b, 1] + dc
        if 0 <= r < h and 0 <= c < w and not walls[b, r, c]:
            if boxes[b, r, c]:
                r2, c2 = r + dr, c + dc
                if 0 <= r2 < h and 0 <= c2 < w and not walls[b, r2, c2] and not boxes[b, r2, c2]:
                    boxes[b, r, c] = False
                    boxes[b, r2, c2] = True
                    if targets[b, r, c]:
                        reward += BOX_OFF
                    if targets[b, r2, c2]:
                        reward += BOX_ON
                    players[b, 0], players[b, 1] = r, c
                    pushed = r * w + c
            else:
                players[b, 0], players[b, 1] = r, c
    solved = True
    for i in range(h):
        for j in range(w):
            if boxes[b, i, j] and not targets[b, i, j]:
                solved = False
    if solved:
        reward += SOLVED
    return reward, solved, pushed


@njit(cache=True)
def step_one(walls, targets, boxes, player, action):
    """Apply one action to a single (H, W) game in place; returns (reward, solved, pushed-from flat index or -1)."""
    return _step_at(walls.reshape((1,) + walls.shape), targets.reshape((1,) + targets.shape),
                    boxes.reshape((1,) + boxes.shape), player.reshape((1, 2)), 0, action)


@njit(cache=True)
def step_batch(walls, targets, boxes, players, steps, actions, cap, rewards, terminated, truncated):
    """Step every env of the batch in place (no reset): fills rewards/terminated/truncated."""
    for b in range(walls.shape[0]):
        rew, solved, _ = _step_at(walls, targets, boxes, players, b, actions[b])
        steps[b] += 1
        rewards[b] = rew
        terminated[b] = solved
        truncated[b] = (not solved) and steps[b] >= cap


@njit(cache=True)
def observe_batch(walls, targets, boxes, players, out):
    """Fill out (B,7,H,W) float32 with the one-hot observation."""
    bsz, h, w = walls.shape
    out[:] = 0.0
    for b in range(bsz):
        for i in range(h):
            for j in range(w):
                agent = players[b, 0] == i and players[b, 1] == j
                if walls[b, i, j]:
                    k = 0
                elif boxes[b, i, j]:
                    k = 3 if targets[b, i, j] else 2
                elif agent:
                    k = 5 if targets[b, i, j] else 4
                elif targets[b, i, j]:
                    k = 6
                else:
                    k = 1
                out[b, k, i, j] = 1.0


@njit(cache=True)
def load_levels(pool_walls, pool_targets, pool_boxes, pool_players, walls, targets, boxes, players, steps,
                level_index, envs, idx):
    """Reset env envs[k] to pool level idx[k], for every k."""
    for k in range(len(envs)):
        b, i = envs[k], idx[k]
        walls[b] = pool_walls[i]
        targets[b] = pool_targets[i]
        boxes[b] = pool_boxes[i]
        players[b] = pool_players[i]
        steps[b] = 0
        level_index[b] = i


class BatchEnv:
    """B Sokoban games stepped together; each resets from `levels` (cycled or sampled) when it ends."""

    def __init__(self, levels: list[Level], n_envs: int, seed: int = 0, cap: int = CAP, sample: bool = True):
        self.pool = stack(levels)
        self.n, self.cap, self.sample = n_envs, cap, sample
        self.rng = np.random.default_rng(seed)
        self.next_index = 0
        self.weights: np.ndarray | None = None  # sampling probabilities over the pool (curriculum)
        h, w = levels[0].shape
        self.walls = np.zeros((n_envs, h, w), np.bool_)
        self.targets = np.zeros_like(self.walls)
        self.boxes = np.zeros_like(self.walls)
        self.players = np.zeros((n_envs, 2), np.int64)
        self.steps = np.zeros(n_envs, np.int64)
        self.level_index = np.zeros(n_envs, np.int64)
        self.obs = np.zeros((n_envs, N_CHANNELS, h, w), np.float32)
        self.rewards = np.zeros(n_envs, np.float32)
        self.terminated = np.zeros(n_envs, np.bool_)
        self.truncated = np.zeros(n_envs, np.bool_)
        load_levels(*self.pool, self.walls, self.targets, self.boxes, self.players, self.steps, self.level_index,
                    np.arange(n_envs), self._draw(n_envs))

    def _draw(self, k: int) -> np.ndarray:
        """Pool indices for k resets (one draw for all: a draw per env cost as much as stepping them)."""
        n = len(self.pool[0])
        if not self.sample:
            idx = (self.next_index + np.arange(k)) % n
            self.next_index += k
            return idx
        if self.weights is None:
            return self.rng.integers(n, size=k)
        return self.rng.choice(n, size=k, p=self.weights)

    def observe(self) -> np.ndarray:
        observe_batch(self.walls, self.targets, self.boxes, self.players, self.obs)
        return self.obs

    def step(self, actions: np.ndarray, auto_reset: bool = True):
        """Step all envs; ended ones reset (auto_reset). Returns (rewards, terminated, truncated) copies."""
        step_batch(self.walls, self.targets, self.boxes, self.players, self.steps,
                   np.asarray(actions, np.int64), self.cap, self.rewards, self.terminated, self.truncated)
        out = self.rewards.copy(), self.terminated.copy(), self.truncated.copy()
        if auto_reset:
            ended = np.flatnonzero(self.terminated | self.truncated)
            if len(ended):
                load_levels(*self.pool, self.walls, self.targets, self.boxes, self.players, self.steps,
                            self.level_index, ended, self._draw(len(ended)))
        return out
