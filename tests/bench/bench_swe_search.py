"""swe-search benchmark: numba selection + backprop vs the pure-Python reference on a 10k-node tree, and the
mini-benchmark resolve rate of MCTS vs the linear baseline (offline agent, same proposer and node budget).

Usage: python tests/bench/bench_swe_search.py [--iterations 20] [--seeds 0] [--workers 2] [--skip-resolve]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from tests.swe_search import uct_reference as ref  # noqa: E402
from toolkit.swe_search import kernels  # noqa: E402

PARAMS = (1.0, 200.0, 0.8, 0.8)


def bench_kernels(size: int = 10_000, steps: int = 200) -> dict:
    rng = np.random.default_rng(0)
    parent, depth, n_children, visits, value_sum, terminal = ref.random_tree(rng, size, visited_fraction=1.0)
    rewards = rng.integers(-100, 101, steps).astype(np.float64)
    args = (size, parent, visits.copy(), value_sum.copy(), depth, n_children, terminal, rewards[:2], 3, *PARAMS)
    kernels.run_iterations(*args)  # compile / load the cache
    v1, s1 = visits.copy(), value_sum.copy()
    t = time.process_time()
    total1 = kernels.run_iterations(size, parent, v1, s1, depth, n_children, terminal, rewards, 3, *PARAMS)
    numba_s = time.process_time() - t
    lists = [a.tolist() for a in (parent, visits, value_sum, depth, n_children, terminal)]
    p, v2, s2, d, nc, term = lists
    t = time.process_time()
    total2 = ref.run_iterations(size, p, v2, s2, d, nc, term, rewards.tolist(), 3, *PARAMS)
    python_s = time.process_time() - t
    assert total1 == total2 and v1.tolist() == v2 and s1.tolist() == s2, "numba and reference disagree"
    return {"tree_nodes": size, "iterations": steps, "numba_s": round(numba_s, 5), "python_s": round(python_s, 4),
            "speedup": round(python_s / numba_s, 1)}


def _solve(job):
    from toolkit.swe_search.runner import solve_job

    pred, tree = solve_job(job)
    return pred["instance_id"], job["options"]["strategy"], job["options"]["seed"], pred["resolved"], pred["expansions"]


def bench_resolve(iterations: int, seeds: list[int], workers: int) -> dict:
    from toolkit.core.parallel import map_jobs
    from toolkit.swe_search.instances import load_instances

    insts = load_instances(ROOT / "assets" / "swe_search" / "instances.jsonl")
    jobs = [{"instance": i.to_job(), "llm": None,
             "options": {"strategy": s, "iterations": iterations, "seed": seed, "test_timeout": 60.0}}
            for seed in seeds for s in ("mcts", "linear") for i in insts]
    rows = map_jobs(_solve, jobs, workers=workers)
    out = {"instances": len(insts), "node_budget": iterations, "seeds": seeds}
    for strategy in ("mcts", "linear"):
        mine = [r for r in rows if r[1] == strategy]
        out[strategy] = {"resolved": sum(r[3] for r in mine), "runs": len(mine),
                         "resolve_rate": round(sum(r[3] for r in mine) / len(mine), 4),
                         "mean_expansions": round(sum(r[4] for r in mine) / len(mine), 2),
                         "per_instance": {f"{r[0]}@{r[2]}": r[3] for r in mine}}
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-resolve", action="store_true")
    a = ap.parse_args()
    results = {"kernels": bench_kernels()}
    k = results["kernels"]
    print(f"numba select+backprop on {k['tree_nodes']} nodes x {k['iterations']} iterations: {k['numba_s']:.4f} s; "
          f"pure Python {k['python_s']:.3f} s; speedup {k['speedup']}x (goal >= 30x)")
    if not a.skip_resolve:
        r = bench_resolve(a.iterations, a.seeds, a.workers)
        results["resolve"] = r
        print(f"mini-benchmark ({r['instances']} instances, budget {r['node_budget']} nodes, seeds {r['seeds']}): "
              f"MCTS {r['mcts']['resolved']}/{r['mcts']['runs']} ({r['mcts']['resolve_rate']:.1%}) vs linear "
              f"{r['linear']['resolved']}/{r['linear']['runs']} ({r['linear']['resolve_rate']:.1%})")
    out = ROOT / "bench-results" / "swe_search.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
