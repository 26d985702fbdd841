"""`ssm.curve` rows: accuracy by task, size, depth and mode with Wilson intervals, the error-type mix, the floor
(the expected accuracy of answering the table's most frequent value, compose and iterate), and the per-step
reliability p of two fits over the depths of each (task, size, mode): `p_step_floor` of
accuracy(K) = floor + (1 - floor) p^K (each step right with probability p; a wrong chain still hits the answer
about as often as the most-frequent-value guess does), and `p_step` of accuracy(K) = p^K through the origin."""

from __future__ import annotations

import math
from collections import Counter

from toolkit.core.records import make_record


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def per_step_p(points: list[tuple[int, float]]) -> float | None:
    """Least-squares fit of log acc = K log p through the origin (accuracies floored at 1e-3)."""
    pts = [(k, math.log(max(acc, 1e-3))) for k, acc in points if k]
    if not pts:
        return None
    return math.exp(sum(k * la for k, la in pts) / sum(k * k for k, _ in pts))


def per_step_p_floor(points: list[tuple[int, float, float]]) -> float | None:
    """p of accuracy(K) = floor + (1 - floor) p^K: the through-origin fit on (acc - floor) / (1 - floor)."""
    lifted = [(k, (acc - f) / (1 - f)) for k, acc, f in points if k and f < 1]
    return per_step_p(lifted)


def curve_rows(scores: list[dict], extra: dict | None = None) -> list[dict]:
    groups: dict[tuple, list[dict]] = {}
    for s in scores:
        groups.setdefault((s["task"], s["size"], s["depth"], s["mode"]), []).append(s)
    fits: dict[tuple, list] = {}
    rows = []
    order = sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or 0, kv[0][3]))
    for (task, size, depth, mode), items in order:
        n, k = len(items), sum(s["correct"] for s in items)
        lo, hi = wilson(k, n)
        nodes = Counter()
        for s in items:
            nodes.update(s.get("nodes", {}))
        shortcut_hits = Counter(h.split(":")[0] for s in items for h in s.get("shortcuts", []))
        floors = [s.get("floor") for s in items]
        base = None if any(f is None for f in floors) else sum(floors) / n
        rows.append({"task": task, "size": size, "depth": depth, "mode": mode, "n": n, "correct": k,
                     "accuracy": round(k / n, 4), "ci95": [round(lo, 4), round(hi, 4)],
                     "floor": None if base is None else round(base, 4),
                     "outcomes": dict(Counter(s["outcome"] for s in items)), "node_types": dict(nodes),
                     "shortcuts": dict(shortcut_hits)})
        fits.setdefault((task, size, mode), []).append((depth or 1, k / n, base))
    for row in rows:
        points = fits[(row["task"], row["size"], row["mode"])]
        p = per_step_p([(d, acc) for d, acc, _ in points])
        row["p_step"] = None if p is None else round(p, 4)
        pf = None if any(f is None for _, _, f in points) else per_step_p_floor(points)
        row["p_step_floor"] = None if pf is None else round(pf, 4)
    return [make_record("ssm.curve", **row, **(extra or {})) for row in rows]
