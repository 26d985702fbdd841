"""compgen benchmark: numba kernel construction and decomposition vs the numpy reference (4096 items)."""

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from toolkit.compgen import (  # noqa: E402
    conjunction_weights,
    kernels,  # noqa: E402
    sims_for,
)
from toolkit.compgen.tasks import grid  # noqa: E402


def numpy_kernel(xa, xb, sims):
    eq = xa[:, None, :] == xb[None, :, :]
    return sims[(eq * (1 << np.arange(xa.shape[1]))).sum(-1)]


def numpy_decompose(x, alpha, w, sizes, offsets):
    g = np.zeros(offsets[-1])
    for s in range(len(w)):
        codes = np.zeros(len(x), dtype=np.int64)
        radix = 1
        for k in range(x.shape[1]):
            if s >> k & 1:
                codes += x[:, k] * radix
                radix *= sizes[k]
        np.add.at(g, offsets[s] + codes, w[s] * alpha)
    return g


def best_of(fn, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main():
    sizes = (16, 16, 16)  # 4096 items, 3 components
    x = grid(sizes)
    sims = sims_for("relu", 3)
    w = conjunction_weights(sims)
    offsets = kernels.conjunction_layout(sizes)
    alpha = np.random.default_rng(0).normal(size=len(x))
    size_arr = np.array(sizes)
    kernels.kernel_matrix(x[:2], x[:2], sims)  # compile (or load the cache) outside the timing
    kernels.decompose(x[:2], alpha[:2], w, size_arr, offsets)
    t_np, k_np = best_of(lambda: numpy_kernel(x, x, sims))
    t_nb, k_nb = best_of(lambda: kernels.kernel_matrix(x, x, sims))
    d_np, g_np = best_of(lambda: numpy_decompose(x, alpha, w, size_arr, offsets))
    d_nb, g_nb = best_of(lambda: kernels.decompose(x, alpha, w, size_arr, offsets))
    figures = {
        "items": len(x),
        "kernel_numpy_s": t_np, "kernel_numba_s": t_nb, "kernel_speedup": t_np / t_nb,
        "kernel_max_abs_diff": float(np.abs(k_np - k_nb).max()),
        "decompose_numpy_s": d_np, "decompose_numba_s": d_nb, "decompose_speedup": d_np / d_nb,
        "decompose_max_abs_diff": float(np.abs(g_np - g_nb).max()),
    }
    for key, value in figures.items():
        print(f"{key:>24}: {value:.4g}" if isinstance(value, float) else f"{key:>24}: {value}")
    out = ROOT / "bench-results"
    out.mkdir(exist_ok=True)
    (out / "compgen.json").write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
