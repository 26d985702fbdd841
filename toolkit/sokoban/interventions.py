"""Plan interventions: write a route into the agent's cell state with probe directions.

A case pairs the agent's own (unintervened) route with a solver alternative that avoids one square of
the agent's first walk (the checkpoint) and is at most 1.5x longer. The intervention adds, every tick
after the gates, alpha * w_k at listed squares of one layer's c: w_NEVER (the CA 1x1 probe's weight row)
on old-route squares the new route does not use, and the entering direction's row along the new route's
first walk, until the agent's first push. The control adds random vectors of equal norm at the same squares.
Success: the agent never visits the checkpoint square and solves the level within the step cap.
"""

from __future__ import annotations

import numpy as np
import torch

from toolkit.core.errors import InputError
from toolkit.sokoban.drc import DRCAgent
from toolkit.sokoban.levels import Level, parse_rows
from toolkit.sokoban.rollout import Intervention, rollout
from toolkit.sokoban.solver import solve_astar

DELTA = {1: (-1, 0), 2: (1, 0), 3: (0, -1), 4: (0, 1)}


def first_walk(players: list[tuple[int, int]], pushes: list[int]) -> int:
    """Number of actions before the first push."""
    return next((i for i, p in enumerate(pushes) if p >= 0), len(pushes))


def _replay(level: Level, actions: list[int]) -> tuple[list[tuple[int, int]], list[int]]:
    from toolkit.sokoban.env import BatchEnv

    env = BatchEnv([level], 1, sample=False, cap=10**6)
    players, pushes = [tuple(level.player)], []
    for a in actions:
        before = env.boxes.copy()
        env.step(np.array([a]), auto_reset=False)
        players.append((int(env.players[0, 0]), int(env.players[0, 1])))
        moved = np.flatnonzero((before[0] & ~env.boxes[0]).ravel())
        pushes.append(int(moved[0]) if len(moved) else -1)
    return players, pushes


def build_cases(agent: DRCAgent, levels: list[Level], max_ratio: float = 1.5, node_limit: int = 20_000) -> list[dict]:
    cases = []
    for level, ep in zip(levels, rollout(agent, levels), strict=False):
        if not ep.solved:
            continue
        k = first_walk(ep.players, ep.pushes)
        walk = ep.players[1:k]  # squares entered before the push stance (the stance itself is needed)
        for square in walk:
            walls = level.walls.copy()
            walls[square] = True
            blocked = Level(walls, level.targets, level.boxes, level.player, level.id)
            sol = solve_astar(blocked, node_limit)
            if not sol.solved or sol.moves > max_ratio * ep.steps:
                continue
            players, pushes = _replay(level, sol.actions())
            m = first_walk(players, pushes)
            new = [(list(players[i + 1]), sol.actions()[i]) for i in range(m)]
            cases.append({"id": level.id, "rows": level.rows(), "checkpoint": list(square),
                          "old_route": [list(p) for p in ep.players[:k + 1]], "new_route": new,
                          "old_moves": ep.steps, "new_moves": sol.moves})
            break
    return cases


def case_level(case: dict, where: str) -> Level:
    for key in ("rows", "checkpoint", "old_route", "new_route"):
        if key not in case:
            raise InputError(f"{where}: missing field '{key}'")
    return parse_rows(case["rows"], where, str(case.get("id", "")))


def deltas(cases: list[dict], probe_weight: np.ndarray, agent: DRCAgent, layer: int, alpha: float,
           control: bool = False, seed: int = 0) -> torch.Tensor:
    """(B, D, C, H, W) additions for each case: probe rows, or random vectors of the same norms (control)."""
    cfg = agent.cfg
    out = np.zeros((len(cases), cfg.depth, cfg.channels, *cfg.grid), np.float32)
    rng = np.random.default_rng(seed)
    for b, case in enumerate(cases):
        writes: dict[tuple[int, int], int] = {}
        new_squares = {tuple(sq) for sq, _ in case["new_route"]}
        for sq in case["old_route"][1:]:
            if tuple(sq) not in new_squares:
                writes[tuple(sq)] = 0
        for sq, direction in case["new_route"]:
            writes[tuple(sq)] = int(direction)
        for (r, c), k in writes.items():
            vec = probe_weight[k]
            if control:
                rand = rng.standard_normal(vec.shape).astype(np.float32)
                vec = rand / np.linalg.norm(rand) * np.linalg.norm(vec)
            out[b, layer, :, r, c] = alpha * vec
    return torch.from_numpy(out)


def run_cases(agent: DRCAgent, cases: list[dict], probe_weight: np.ndarray, layer: int, alpha: float,
              control: bool = False, seed: int = 0, cap: int = 120) -> list[dict]:
    levels = [case_level(c, f"case {i}") for i, c in enumerate(cases)]
    iv = Intervention(deltas(cases, probe_weight, agent, layer, alpha, control, seed), layer)
    results = []
    for case, ep in zip(cases, rollout(agent, levels, cap=cap, intervention=iv), strict=False):
        visited = tuple(case["checkpoint"]) in {tuple(p) for p in ep.players}
        results.append({"id": case["id"], "layer": layer, "alpha": alpha, "control": "random" if control else "probe",
                        "solved": ep.solved, "visited_checkpoint": visited, "success": ep.solved and not visited,
                        "steps": ep.steps})
    return results
