"""geomrel verifier timing: the float verifier (method B: numpy realizations, least_squares, shapely) against a
per-item exact reference (method A: sympy coordinates with symbolic parameters, factoring, exact witnesses) on the
same items.

Generates N fresh items (half basic, half advanced, all domains; default 500), then times, per item, B reading
the text and A re-deriving the label from the construction; prints items/s of each, the ratio (goal >= 20x) and
how often the two agree (must be 100%), listing disagreements. Writes bench-results/geomrel.json.
Usage: python tests/bench/bench_geomrel.py [N] [SEED]
"""

import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from toolkit.geomrel import exact, labels  # noqa: E402
from toolkit.geomrel.generate import generate  # noqa: E402
from toolkit.geomrel.verify import verify_item  # noqa: E402

GOAL = 20.0


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 9090
    items = generate(n // 2, seed, "basic", ["line", "angle", "shape"]) + \
        generate(n - n // 2, seed, "advanced", ["line", "angle", "shape"])
    start = time.perf_counter()
    verdicts = [verify_item(it) for it in items]
    t_float = time.perf_counter() - start
    start = time.perf_counter()
    exact_labels = []
    for it in items:
        c = it["construction"]
        try:
            exact_labels.append(labels.derive(exact.realize(c["steps"]), c["question"], random.Random(0))[0])
        except labels.Undecided:
            exact_labels.append(None)
    t_exact = time.perf_counter() - start
    disagree = [it["id"] for it, v in zip(items, verdicts, strict=True) if v["status"] != "agree"]
    undecided = [it["id"] for it, lab in zip(items, exact_labels, strict=True) if lab != it["canonical"]]
    figures = {
        "items": n, "seed": seed, "goal_ratio": GOAL,
        "float_items_per_s": round(n / t_float, 2), "exact_items_per_s": round(n / t_exact, 2),
        "ratio": round(t_exact / t_float, 2),
        "agreement": round(1 - len(disagree) / n, 4), "disagreements": disagree,
        "exact_rederivation_mismatch": undecided,
    }
    print(f"float verifier: {n / t_float:.1f} items/s; exact sympy reference: {n / t_exact:.1f} items/s "
          f"-> {t_exact / t_float:.1f}x (goal >= {GOAL:.0f}x)")
    print(f"agreement {figures['agreement']:.2%} ({len(disagree)} disagreements: {', '.join(disagree) or 'none'})")
    out = ROOT / "bench-results"
    out.mkdir(exist_ok=True)
    (out / "geomrel.json").write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
