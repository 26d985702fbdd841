"""Matcha benchmarks: vectorised CSBM vs the per-pair loop (goal >= 100x at n=2000), a Matcha round with the cached
hop stack vs a full featurize forward (goal >= 10x), and pure-torch vs torch_geometric propagation (reported).

Writes bench-results/matcha.json.
"""

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from toolkit.matcha.adapt import TargetView  # noqa: E402
from toolkit.matcha.csbm import csbm_edges, csbm_edges_loop, generate_csbm, labels  # noqa: E402
from toolkit.matcha.gprgnn import GPRGNN  # noqa: E402
from toolkit.matcha.pic import pic_loss  # noqa: E402
from toolkit.matcha.propagate import normalized_adjacency, propagate  # noqa: E402


def best_of(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def csbm_speed(n: int = 2000) -> dict:
    y = labels(n)
    loop = best_of(lambda: csbm_edges_loop(np.random.RandomState(0), y, 5, 0.8), repeat=1)
    fast = best_of(lambda: csbm_edges(np.random.default_rng(0), y, 5, 0.8))
    return {"n": n, "loop_s": round(loop, 4), "vectorised_s": round(fast, 6), "ratio": round(loop / fast, 1),
            "goal_ratio": 100}


def round_speed() -> dict:
    torch.manual_seed(0)
    g = generate_csbm(5000, 2000, 0.03, 0.0, 5, 0.2, seed=1000)
    model = GPRGNN(2000).eval()
    model.requires_grad_(False)
    model.hop_weights.requires_grad_(True)
    view = TargetView(model, g)
    x, ei = torch.as_tensor(g.x), g.edge_index
    prob = torch.full((5000, 2), 0.5)

    def cached():
        model.hop_weights.grad = None
        pic_loss(view.features(), model.classifier(view.features()).softmax(1)).backward()

    def full():
        model.hop_weights.grad = None
        z = model.featurize(x, ei)
        pic_loss(z, prob).backward()
        model.classifier(model.featurize(x, ei))

    c, f = best_of(cached), best_of(full)
    return {"cached_round_ms": round(1000 * c, 3), "full_forward_round_ms": round(1000 * f, 3),
            "ratio": round(f / c, 1), "goal_ratio": 10}


def propagation_speed() -> dict:
    g = generate_csbm(5000, 8, 0.03, 0.0, 10, 0.8, seed=3)
    h = torch.randn(5000, 32)
    gamma = torch.rand(10)
    adj = normalized_adjacency(g.edge_index, 5000)
    ours = best_of(lambda: propagate(adj, h, gamma))
    out = {"pure_torch_ms": round(1000 * ours, 3)}
    from toolkit.matcha.pyg_reference import pyg_propagate

    ei = torch.as_tensor(g.edge_index)
    try:
        theirs = best_of(lambda: pyg_propagate(ei, h, gamma))
    except ImportError:
        return {**out, "torch_geometric": "not installed (extra 'graph')"}
    return {**out, "torch_geometric_ms": round(1000 * theirs, 3), "ratio": round(theirs / ours, 2)}


def main() -> None:
    torch.set_num_threads(1)
    figures = {"csbm": csbm_speed(), "matcha_round": round_speed(), "propagation": propagation_speed()}
    c, r, p = figures["csbm"], figures["matcha_round"], figures["propagation"]
    print(f"CSBM edges at n={c['n']}: per-pair loop {c['loop_s']:.2f} s, vectorised {c['vectorised_s'] * 1000:.2f} ms "
          f"-> {c['ratio']}x (goal >= 100x)")
    print(f"Matcha round (n=5000, p=2000): cached hop stack {r['cached_round_ms']:.2f} ms, full forward "
          f"{r['full_forward_round_ms']:.1f} ms -> {r['ratio']}x (goal >= 10x)")
    print(f"propagation K=9, n=5000, D=32: pure torch {p['pure_torch_ms']:.2f} ms"
          + (f", torch_geometric {p['torch_geometric_ms']:.2f} ms ({p['ratio']}x)" if "ratio" in p else ""))
    out = ROOT / "bench-results"
    out.mkdir(exist_ok=True)
    (out / "matcha.json").write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
