"""A gymnasium wrapper of the numba env (one game; passes gymnasium's check_env)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from toolkit.sokoban.env import CAP, N_ACTIONS, N_CHANNELS, observe_batch, step_one
from toolkit.sokoban.levels import Level


class SokobanEnv(gym.Env):
    metadata = {"render_modes": ["ansi"]}

    def __init__(self, levels: list[Level], cap: int = CAP, render_mode: str | None = None):
        self.levels, self.cap, self.render_mode = levels, cap, render_mode
        h, w = levels[0].shape
        self.observation_space = gym.spaces.Box(0.0, 1.0, (N_CHANNELS, h, w), np.float32)
        self.action_space = gym.spaces.Discrete(N_ACTIONS)
        self._obs = np.zeros((1, N_CHANNELS, h, w), np.float32)

    def _observe(self) -> np.ndarray:
        observe_batch(self.walls[None], self.targets[None], self.boxes[None], self.player[None], self._obs)
        return self._obs[0].copy()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        index = int(self.np_random.integers(len(self.levels))) if not options or "level" not in options \
            else int(options["level"])
        lv = self.levels[index]
        self.walls, self.targets = lv.walls.copy(), lv.targets.copy()
        self.boxes, self.player = lv.boxes.copy(), np.array(lv.player, np.int64)
        self.steps = 0
        return self._observe(), {"level": index}

    def step(self, action):
        reward, solved, _ = step_one(self.walls, self.targets, self.boxes, self.player, int(action))
        self.steps += 1
        truncated = (not solved) and self.steps >= self.cap
        return self._observe(), float(reward), bool(solved), bool(truncated), {}

    def render(self):
        from toolkit.sokoban.levels import Level as L

        return L(self.walls, self.targets, self.boxes, (int(self.player[0]), int(self.player[1]))).text()
