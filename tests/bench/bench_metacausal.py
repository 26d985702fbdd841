"""metacausal engine timing: the compiled exact L1 engine against the LP reference (QuantileRegressor, HiGHS).

Measures, in one run: one M-step (both directions of one mechanism, N = 1000) and one full K'=2 EM restart with
each engine (goal: fast >= 50x), and benchmark problems per minute with the official restarts (K' = 1..4).
Prints the ratios and writes bench-results/metacausal.json.

`python tests/bench/bench_metacausal.py starts` instead compares EM starts on development problems (seeds
10000..10029, K = 2, 3, 4): K random point pairs against RANSAC-style starts, with 1 and 4 restarts, counting the
true lines recovered (slope and intercept within 0.2) by the best-scoring restart; writes
bench-results/metacausal-starts.json.
"""

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from toolkit.metacausal.anderson import ad_statistic  # noqa: E402
from toolkit.metacausal.em import draw_starts, e_step, em_iterations, restarts_fast  # noqa: E402
from toolkit.metacausal.em_reference import ad_statistic_loop, em_reference, lad_line_lp  # noqa: E402
from toolkit.metacausal.generate import sample_linear  # noqa: E402
from toolkit.metacausal.lad import lad_line  # noqa: E402
from toolkit.metacausal.protocol import ProtocolSettings, run_problem  # noqa: E402

GOAL = 50.0


def timed(fn, repeat: int) -> float:
    fn()  # warm-up (compilation for the fast engine)
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def m_step_pair(x, y, weights, labels):
    def fast():
        for cause, effect in ((x, y), (y, x)):
            s, a, _ = lad_line(cause, effect, weights, 0.5)
            ad_statistic(effect[labels] - (s * cause[labels] + a), 0.0)

    def reference():
        for cause, effect in ((x, y), (y, x)):
            s, a = lad_line_lp(cause, effect, weights)
            ad_statistic_loop(effect[labels] - (s * cause[labels] + a))

    return fast, reference


def main() -> None:
    rng = np.random.default_rng(0)
    p = sample_linear(2, rng)  # 1000 points
    x, y = p.x, p.y
    params = np.array([[1.0, 0.0, 1.0, 0], [-1.0, 1.0, 1.0, 0]])
    resid, weights, labels = np.empty((1000, 2)), np.empty((1000, 2)), np.empty(1000, np.int64)
    e_step(x, y, params[:, 0].copy(), params[:, 1].copy(), params[:, 2].copy(), params[:, 3].astype(np.int64),
           resid, weights, labels)
    fast, reference = m_step_pair(x, y, weights[:, 0].copy(), labels == 0)
    t_fast, t_ref = timed(fast, 50), timed(reference, 5)

    starts = draw_starts(len(x), 2, 1, rng)
    i0, i1 = starts[0, :, 0], starts[0, :, 1]
    slope = (y[i1] - y[i0]) / (x[i1] - x[i0])
    start = np.column_stack([slope, y[i0] - slope * x[i0], np.ones(2), np.zeros(2)])
    r_fast = timed(lambda: restarts_fast(x, y, 2, starts), 20)
    r_ref = timed(lambda: em_reference(x, y, start, em_iterations(2)), 2)

    run_problem((2, 0, ProtocolSettings(first_seed=10000)))  # warm-up
    begin = time.perf_counter()
    n = 2
    for i in range(n):
        run_problem((1 + i, i + 1, ProtocolSettings(first_seed=10000)))
    per_problem = (time.perf_counter() - begin) / n

    figures = {
        "goal_ratio": GOAL,
        "m_step_fast_ms": round(t_fast * 1e3, 4), "m_step_reference_ms": round(t_ref * 1e3, 2),
        "m_step_ratio": round(t_ref / t_fast, 1),
        "restart_k2_fast_ms": round(r_fast * 1e3, 3), "restart_k2_reference_ms": round(r_ref * 1e3, 1),
        "restart_k2_ratio": round(r_ref / r_fast, 1),
        "protocol_seconds_per_problem": round(per_problem, 2),
        "protocol_problems_per_minute_one_core": round(60 / per_problem, 2),
    }
    print(f"M-step (N=1000, both directions): fast {t_fast * 1e3:.3f} ms, reference {t_ref * 1e3:.1f} ms "
          f"-> {t_ref / t_fast:.0f}x (goal >= {GOAL:.0f}x)")
    print(f"one K'=2 EM restart: fast {r_fast * 1e3:.2f} ms, reference {r_ref * 1e3:.0f} ms "
          f"-> {r_ref / r_fast:.0f}x")
    print(f"benchmark problem (official restarts, K'=1..4, all selection rules): {per_problem:.1f} s "
          f"= {60 / per_problem:.2f} problems/min on one core")
    out = ROOT / "bench-results"
    out.mkdir(exist_ok=True)
    (out / "metacausal.json").write_text(json.dumps(figures, indent=2) + "\n")


def compare_starts() -> None:
    from toolkit.metacausal.accuracy import match
    from toolkit.metacausal.em import fit_fast
    from toolkit.metacausal.inference import draw_init

    rows = []
    for k in (2, 3, 4):
        for restarts in (1, 4):
            found = {"pairs": [0, 0], "ransac": [0, 0]}  # lines recovered, problems with every line recovered
            for seed in range(10000, 10030):
                rng = np.random.default_rng(seed)
                p = sample_linear(k, rng)
                true = np.column_stack([p.slope, p.intercept, p.scale, p.direction])
                for init in ("pairs", "ransac"):
                    f = fit_fast(p.x, p.y, k, draw_init(p.x, p.y, k, restarts, rng, init))
                    hit = match(true, np.column_stack([f.slope, f.intercept, f.scale, f.direction]))["recovered"]
                    found[init][0] += hit
                    found[init][1] += hit == k
            rows.append({"k": k, "restarts": restarts, "lines": 30 * k,
                         **{f"{i}_lines": v[0] for i, v in found.items()},
                         **{f"{i}_all": v[1] for i, v in found.items()}})
            print(f"K={k}, {restarts} restart(s), 30 problems: lines recovered pairs {found['pairs'][0]}/{30 * k}, "
                  f"ransac {found['ransac'][0]}/{30 * k}; all lines: pairs {found['pairs'][1]}, "
                  f"ransac {found['ransac'][1]}")
    out = ROOT / "bench-results"
    out.mkdir(exist_ok=True)
    (out / "metacausal-starts.json").write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    compare_starts() if sys.argv[1:] == ["starts"] else main()
