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
def _free(walls, boxes, r, c):
    h, w = walls.shape
    return 0 <= r < h and 0 <= c < w and not walls[r, c] and not boxes[r, c]


@njit(cache=True)
def step_one(walls, targets, boxes, player, action):
    """Apply one action in place; returns (reward, solved, pushed-from flat index or -1)."""
    h, w = walls.shape
    reward = STEP_PENALTY
    pushed = -1
    if action != 0:
        dr = (0, -1, 1, 0, 0)[action]
        dc = (0, 0, 0, -1, 1)[action]
        r, c = player[0] + dr, player[1] + dc
        if 0 <= r < h and 0 <= c < w and not walls[r, c]:
            if boxes[r, c]:
                r2, c2 = r + dr, c + dc
                if _free(walls, boxes, r2, c2):
                    boxes[r, c] = False
                    boxes[r2, c2] = True
                    if targets[r, c]:
                        reward += BOX_OFF
                    if targets[r2, c2]:
                        reward += BOX_ON
                    player[0], player[1] = r, c
                    pushed = r * w + c
            else:
                player[0], player[1] = r, c
    solved = True
    for i in range(h):
        for j in range(w):
            if boxes[i, j] and not targets[i, j]:
                solved = False
    if solved:
        reward += SOLVED
    return reward, solved, pushed


@njit(cache=True)
def step_batch(walls, targets, boxes, players, steps, actions, cap, rewards, terminated, truncated):
    """Step every env of the batch in place (no reset): fills rewards/terminated/truncated."""
    for b in range(walls.shape[0]):
        rew, solved, _ = step_one(walls[b], targets[b], boxes[b], players[b], actions[b])
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
        for b in range(n_envs):
            self._load(b)

    def _load(self, b: int) -> None:
        if self.sample:
            n = len(self.pool[0])
            i = int(self.rng.integers(n)) if self.weights is None else int(self.rng.choice(n, p=self.weights))
        else:
            i = self.next_index % len(self.pool[0])
            self.next_index += 1
        walls, targets, boxes, players = self.pool
        self.walls[b], self.targets[b], self.boxes[b] = walls[i], targets[i], boxes[i]
        self.players[b] = players[i]
        self.steps[b] = 0
        self.level_index[b] = i

    def observe(self) -> np.ndarray:
        observe_batch(self.walls, self.targets, self.boxes, self.players, self.obs)
        return self.obs

    def step(self, actions: np.ndarray, auto_reset: bool = True):
        """Step all envs; ended ones reset (auto_reset). Returns (rewards, terminated, truncated) copies."""
        step_batch(self.walls, self.targets, self.boxes, self.players, self.steps,
                   np.asarray(actions, np.int64), self.cap, self.rewards, self.terminated, self.truncated)
        out = self.rewards.copy(), self.terminated.copy(), self.truncated.copy()
        if auto_reset:
            for b in np.flatnonzero(self.terminated | self.truncated):
                self._load(int(b))
        return out
