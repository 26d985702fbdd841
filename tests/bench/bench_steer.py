"""Benchmark: last-token activation reads, batched vs one prompt at a time, on the shipped model.

Prints prompts/s both ways and their ratio, checks both give the same activations, and writes
bench-results/steer.json.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main() -> None:
    import torch

    from toolkit.core.models import load_causal_lm
    from toolkit.steer.activations import read_last_token
    from toolkit.steer.layers import find_layers
    from toolkit.steer.tasks import FAMILIES, generate, make_pairs

    torch.set_num_threads(1)
    model_dir = ROOT / "assets" / "steer" / "model"
    model, tok, _ = load_causal_lm(model_dir, device="cpu")
    texts = [p.positive for f in FAMILIES for p in make_pairs(generate(f, "train", 128, 0), 0)]
    layers = list(range(len(find_layers(model))))
    read_last_token(model, tok, texts[:32], layers, batch_size=32)  # warm-up

    t0 = time.perf_counter()
    batched = read_last_token(model, tok, texts, layers, batch_size=64)
    t_batched = time.perf_counter() - t0
    t0 = time.perf_counter()
    single = read_last_token(model, tok, texts, layers, batch_size=1)
    t_single = time.perf_counter() - t0
    max_diff = max(float((batched[la] - single[la]).abs().max()) for la in layers)
    result = {
        "model": str(model_dir.relative_to(ROOT)),
        "prompts": len(texts),
        "layers": layers,
        "batch_size": 64,
        "batched_prompts_per_s": round(len(texts) / t_batched, 1),
        "single_prompts_per_s": round(len(texts) / t_single, 1),
        "speedup_batched_vs_single": round(t_single / t_batched, 2),
        "max_abs_diff_batched_vs_single": max_diff,
        "torch_threads": 1,
    }
    print(f"activation reads on {len(texts)} prompts, {len(layers)} layers: "
          f"batched {result['batched_prompts_per_s']} prompts/s, one-by-one {result['single_prompts_per_s']} "
          f"prompts/s, ratio {result['speedup_batched_vs_single']}x (max |diff| {max_diff:.2e})")
    out = ROOT / "bench-results" / "steer.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
