"""Plan interventions: write a route into the agent's cell state with probe directions.

A case pairs the agent's own (unintervened) route with a solver alternative that avoids one square of
the agent's first walk (the checkpoint) and is at most 1.5x longer. The intervention adds, every tick
after the gates, alpha * w_k at listed squares of one layer's c: w_NEVER (the CA 1x1 probe's weight row)
on old-route squares the new route does not use, and the entering direction's row along the new route's
first walk. Protocols:
- `official` (run_agent_interv_exps.py): the NEVER writes stay on for the whole episode; the direction writes stop
  once the agent stands on a square of the new route;
- `first-push`: every write stops at the agent's first push.
Controls: `random` (official) writes the rows of a randomly initialised bias-free 1x1 conv probe (torch's default
Conv2d initialisation, torch.manual_seed(seed)) scaled by ||W_probe|| / ||W_random|| (Frobenius, the whole weight);
`random-per-square` writes a fresh random vector at each square with the norm of the probe row it replaces.
Success: the agent never visits the checkpoint square and solves the level within the step cap.
"""

from __future__ import annotations

import numpy as np
import torch

from toolkit.core.errors import InputError
from toolkit.sokoban.drc import DRCAgent
from toolkit.sokoban.levels import Level, parse_rows
from toolkit.sokoban.rollout import Intervention, rollout
from toolkit.sokoban.solver import solve_fast

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
            sol = solve_fast(blocked, node_limit)
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


PROTOCOLS = ("official", "first-push")
ARMS = ("probe", "random", "random-per-square")


def random_probe(probe_weight: np.ndarray, seed: int) -> np.ndarray:
    """The official random control: a default-initialised bias-free 1x1 conv probe's (5, C) rows, scaled to the
    trained probe's Frobenius norm (the official scales alpha by the same ratio)."""
    torch.manual_seed(seed)
    k, c = probe_weight.shape
    rand = torch.nn.Conv2d(c, k, 1, bias=False).weight.detach().reshape(k, c).numpy()
    return (rand * (np.linalg.norm(probe_weight) / np.linalg.norm(rand))).astype(np.float32)


def writes(case: dict) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]:
    """(old-route squares -> NEVER, new-route squares -> entering direction) of one case."""
    new = {tuple(sq): int(direction) for sq, direction in case["new_route"]}
    old = {tuple(sq): 0 for sq in case["old_route"][1:] if tuple(sq) not in new}
    return old, new


def deltas(cases: list[dict], probe_weight: np.ndarray, agent: DRCAgent, layer: int, alpha: float,
           arm: str = "probe", seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, D, C, H, W) NEVER additions on the old route and direction additions on the new route, per case."""
    if arm not in ARMS:
        raise InputError(f"--control {arm}: expected one of {', '.join(ARMS)}")
    cfg = agent.cfg
    never = np.zeros((len(cases), cfg.depth, cfg.channels, *cfg.grid), np.float32)
    route = np.zeros_like(never)
    rng = np.random.default_rng(seed)
    rows = random_probe(probe_weight, seed) if arm == "random" else probe_weight
    for b, case in enumerate(cases):
        for out, squares in zip((never, route), writes(case), strict=True):
            for (r, c), k in squares.items():
                vec = rows[k]
                if arm == "random-per-square":
                    rand = rng.standard_normal(vec.shape).astype(np.float32)
                    vec = rand / np.linalg.norm(rand) * np.linalg.norm(vec)
                out[b, layer, :, r, c] = alpha * vec
    return torch.from_numpy(never), torch.from_numpy(route)


def run_cases(agent: DRCAgent, cases: list[dict], probe_weight: np.ndarray, layer: int, alpha: float,
              arm: str = "probe", seed: int = 0, cap: int = 120, protocol: str = "official") -> list[dict]:
    if protocol not in PROTOCOLS:
        raise InputError(f"--protocol {protocol}: expected one of {', '.join(PROTOCOLS)}")
    levels = [case_level(c, f"case {i}") for i, c in enumerate(cases)]
    never, route = deltas(cases, probe_weight, agent, layer, alpha, arm, seed)
    if protocol == "official":
        iv = Intervention(never, layer, stop_on_push=False, route=route,
                          route_squares=[set(writes(c)[1]) for c in cases])
    else:
        iv = Intervention(never + route, layer, stop_on_push=True)
    results = []
    for case, ep in zip(cases, rollout(agent, levels, cap=cap, intervention=iv), strict=False):
        visited = tuple(case["checkpoint"]) in {tuple(p) for p in ep.players}
        results.append({"id": case["id"], "layer": layer, "alpha": alpha, "control": arm, "protocol": protocol,
                        "solved": ep.solved, "visited_checkpoint": visited, "success": ep.solved and not visited,
                        "steps": ep.steps})
    return results


def success_rate(results: list[dict]) -> float:
    return round(sum(r["success"] for r in results) / len(results), 4) if results else 0.0


def sweep(agent: DRCAgent, pick: list[dict], test: list[dict], weights: dict[int, np.ndarray], alphas: list[float],
          controls: list[str], seed: int, cap: int = 120, protocol: str = "official"):
    """Pick (layer, alpha) on the pick half, then run it, the controls and no intervention on the test half.
    Yields ('sweep', row), ('case', result) and finally ('summary', row)."""
    best, best_rate = (min(weights), alphas[0]), -1.0
    for layer in sorted(weights):
        for alpha in alphas:
            rate = success_rate(run_cases(agent, pick, weights[layer], layer, alpha, cap=cap, protocol=protocol))
            yield "sweep", {"half": "pick", "layer": layer, "alpha": alpha, "n": len(pick), "success": rate,
                            "protocol": protocol}
            if rate > best_rate:
                best, best_rate = (layer, alpha), rate
    layer, alpha = best
    summary = {}
    for arm in ["probe", *controls]:
        res = run_cases(agent, test, weights[layer], layer, alpha, arm=arm, seed=seed, cap=cap, protocol=protocol)
        for r in res:
            yield "case", {"half": "test", **r}
        summary[arm] = success_rate(res)
    summary["none"] = success_rate(run_cases(agent, test, weights[layer], layer, 0.0, cap=cap, protocol=protocol))
    yield "summary", {"layer": layer, "alpha": alpha, "n_pick": len(pick), "n_test": len(test),
                      "pick_success": round(best_rate, 4), "protocol": protocol, "success": summary}
