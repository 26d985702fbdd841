"""Benchmark of `reason sokoban`: batched numba env steps/s vs the pure-Python reference (goal >= 50x),
BFS nodes/s numba vs Python (goal >= 10x), solver nodes/s (A* push-level vs BFS move-level),
DRC transitions/s at batch 64 vs 1.
Writes bench-results/sokoban.json. Run it single-threaded (OMP/NUMBA/TORCH threads 1) for stable figures.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def env_rates(levels) -> dict:
    from toolkit.sokoban.env import BatchEnv
    from toolkit.sokoban.reference import PySokoban

    rng = np.random.default_rng(0)
    env = BatchEnv(levels, 256, seed=0)
    actions = rng.integers(0, 5, (400, 256))
    env.step(actions[0])
    env.observe()
    t0 = time.perf_counter()
    for a in actions:
        env.step(a)
        env.observe()
    numba_rate = actions.size / (time.perf_counter() - t0)
    games = [PySokoban(lv) for lv in levels[:256]]
    t0, n = time.perf_counter(), 0
    for a in actions[:20]:
        for g, act in zip(games, a, strict=False):
            _, solved, trunc = g.step(int(act))
            g.observation()
            n += 1
    py_rate = n / (time.perf_counter() - t0)
    return {"numba_steps_per_s": round(numba_rate), "python_steps_per_s": round(py_rate),
            "ratio": round(numba_rate / py_rate, 1), "goal": 50}


def solver_rates(levels) -> dict:
    from toolkit.sokoban.generate import generate
    from toolkit.sokoban.solver import solve, solve_bfs
    from toolkit.sokoban.solver_numba import solve_bfs_numba

    out = {}
    big = [lv for lv, _, _ in generate(40, (7, 8), [2, 3], 60, "val", 12)]  # searches long enough to time
    solve_bfs_numba(big[0])
    t0, nodes_nb = time.perf_counter(), 0
    for lv in big:
        nodes_nb += solve_bfs_numba(lv)[1]
    nb_rate = nodes_nb / (time.perf_counter() - t0)
    t0, nodes_py = time.perf_counter(), 0
    for lv in big:
        nodes_py += solve_bfs(lv).nodes
    py_rate = nodes_py / (time.perf_counter() - t0)
    out["bfs_numba_vs_python"] = {"levels": "40 generated 7x8, 2-3 boxes", "numba_nodes_per_s": round(nb_rate),
                                  "python_nodes_per_s": round(py_rate), "ratio": round(nb_rate / py_rate, 1),
                                  "goal": 10, "same_nodes": nodes_nb == nodes_py}
    for algo in ("astar", "bfs"):
        t0, nodes = time.perf_counter(), 0
        for lv in levels[:200]:
            nodes += solve(lv, algo).nodes
        secs = time.perf_counter() - t0
        out[algo] = {"nodes": nodes, "seconds": round(secs, 3), "nodes_per_s": round(nodes / secs),
                     "levels_per_s": round(200 / secs, 1)}
    return out


def drc_rates() -> dict:
    import torch

    from toolkit.sokoban.drc import AgentConfig, DRCAgent

    torch.set_num_threads(1)
    agent = DRCAgent(AgentConfig()).eval()
    out = {}
    with torch.no_grad():
        for batch in (1, 64):
            obs, state = torch.rand(batch, 7, 6, 6), agent.initial_state(batch)
            agent(obs, state)
            reps = 400 if batch == 1 else 30
            t0 = time.perf_counter()
            for _ in range(reps):
                _, _, state = agent(obs, state)
            out[f"batch{batch}_transitions_per_s"] = round(batch * reps / (time.perf_counter() - t0))
    out["ratio"] = round(out["batch64_transitions_per_s"] / out["batch1_transitions_per_s"], 1)
    return out


def main() -> None:
    from toolkit.sokoban.generate import generate

    levels = [lv for lv, _, _ in generate(256, (6, 6), [1, 2], 40, "val", 11)]
    result = {"env": env_rates(levels), "solver": solver_rates(levels), "drc": drc_rates()}
    out = ROOT / "bench-results" / "sokoban.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
