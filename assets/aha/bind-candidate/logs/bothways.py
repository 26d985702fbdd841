"""Both-ways check summary: python bothways.py MODEL SAMPLES"""
import json
import sys

import torch

torch.set_num_threads(1)
from toolkit.aha.pairs import both_ways  # noqa: E402
from toolkit.aha.samples import load_samples  # noqa: E402
from toolkit.aha.vlm import load_vlm  # noqa: E402

vlm = load_vlm(sys.argv[1], device="cpu")
rows = both_ways(vlm, load_samples(sys.argv[2]))
d = [r["margin_handled"] - r["margin_named"] for r in rows]
summary = {"model": sys.argv[1], "grids": len(rows),
           "verdict_differs": sum((r["margin_named"] > 0) != (r["margin_handled"] > 0) for r in rows),
           "right_both_ways": sum(r["margin_named"] < 0 < r["margin_handled"] for r in rows),
           "handled_larger": sum(x > 0 for x in d), "named_no": sum(r["margin_named"] < 0 for r in rows),
           "handled_yes": sum(r["margin_handled"] > 0 for r in rows),
           "mean_diff": round(sum(d) / len(d), 4), "mean_abs_diff": round(sum(map(abs, d)) / len(d), 4)}
print(json.dumps(summary))
