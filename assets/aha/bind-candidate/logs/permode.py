"""Per-mode binary accuracy with Wilson 95% intervals: python permode.py VERDICTS GOLD"""
import json
import math
import sys
from collections import defaultdict

from toolkit.aha.prompt import split_answer


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return round(centre - half, 3), round(centre + half, 3)


gold = {r["sample_id"]: r for r in map(json.loads, open(sys.argv[2])) if r.get("type") == "aha.sample"}
hits = defaultdict(list)
for r in map(json.loads, open(sys.argv[1])):
    g = gold.get(r.get("sample_id"))
    if g is not None:
        ok = split_answer(r["raw"])[0] == g["label"]
        hits[g["mode"]].append(ok)
        hits["ALL"].append(ok)
for m in sorted(hits):
    k, n = sum(hits[m]), len(hits[m])
    print(f"{m:16s} {k:4d}/{n:<4d} {k / n:.3f} {wilson(k, n)}")
