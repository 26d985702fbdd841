"""Pure-Python Sokoban: the plain-rules reference the numba env is checked and benchmarked against."""

from __future__ import annotations

from toolkit.sokoban.levels import Level

MOVES = {1: (-1, 0), 2: (1, 0), 3: (0, -1), 4: (0, 1)}


class PySokoban:
    def __init__(self, level: Level, cap: int = 120):
        self.h, self.w = level.shape
        self.walls = {(r, c) for r in range(self.h) for c in range(self.w) if level.walls[r, c]}
        self.targets = {(r, c) for r in range(self.h) for c in range(self.w) if level.targets[r, c]}
        self.boxes = {(r, c) for r in range(self.h) for c in range(self.w) if level.boxes[r, c]}
        self.player = tuple(level.player)
        self.steps, self.cap = 0, cap

    def blocked(self, r: int, c: int) -> bool:
        return not (0 <= r < self.h and 0 <= c < self.w) or (r, c) in self.walls

    def step(self, action: int) -> tuple[float, bool, bool]:
        reward = -0.01
        if action in MOVES:
            dr, dc = MOVES[action]
            r, c = self.player[0] + dr, self.player[1] + dc
            if not self.blocked(r, c):
                if (r, c) in self.boxes:
                    beyond = (r + dr, c + dc)
                    if not self.blocked(*beyond) and beyond not in self.boxes:
                        self.boxes.remove((r, c))
                        self.boxes.add(beyond)
                        reward += (-1.0 if (r, c) in self.targets else 0.0) + (1.0 if beyond in self.targets else 0.0)
                        self.player = (r, c)
                else:
                    self.player = (r, c)
        self.steps += 1
        solved = self.boxes <= self.targets
        if solved:
            reward += 10.0
        return reward, solved, (not solved) and self.steps >= self.cap

    def observation(self) -> list[list[list[float]]]:
        obs = [[[0.0] * self.w for _ in range(self.h)] for _ in range(7)]
        for r in range(self.h):
            for c in range(self.w):
                cell = (r, c)
                if cell in self.walls:
                    k = 0
                elif cell in self.boxes:
                    k = 3 if cell in self.targets else 2
                elif cell == self.player:
                    k = 5 if cell in self.targets else 4
                else:
                    k = 6 if cell in self.targets else 1
                obs[k][r][c] = 1.0
        return obs
