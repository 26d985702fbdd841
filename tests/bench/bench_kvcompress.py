"""Benchmark: KV memory held and decode tokens/s vs context length, full cache vs HeadKV at a fixed budget.

Run from the repo root: .venv/bin/python tests/bench/bench_kvcompress.py
Writes bench-results/kvcompress.json. Memory must stay flat with headkv while the full cache grows.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

LENGTHS = (1024, 2048, 4096, 8192)
BUDGET = 64
NEW_TOKENS = 32


def load():
    import numpy as np

    from toolkit.kvcompress import DEFAULT_MODEL, DEFAULT_SCORES

    model_dir = Path(DEFAULT_MODEL)
    if (model_dir / "config.json").exists():
        from toolkit.kvcompress.loading import load_model
        from toolkit.kvcompress.scoring import load_scores

        model, _ = load_model(model_dir, "sdpa")
        scores_path = Path(DEFAULT_SCORES["retrieval"])
        scores = load_scores(scores_path)["scores"] if scores_path.exists() else None
        source = "assets/kvcompress/model"
    else:  # no shipped model: same architecture, random weights (speed/memory do not depend on weights)
        from transformers import LlamaForCausalLM

        from toolkit.kvcompress.train import model_config

        cfg = model_config(hidden=96, n_heads=6, n_kv_heads=6, max_positions=8192)
        cfg._attn_implementation = "sdpa"
        model = LlamaForCausalLM(cfg).eval()
        scores, source = None, "random-init (no shipped model found)"
    if scores is None:
        scores = np.random.default_rng(0).random((model.config.num_hidden_layers,
                                                   model.config.num_attention_heads)) ** 4
    return model, scores, source


def run_one(model, ids, press, new_tokens):
    """Prefill seconds, decode tokens/s (timed between generated tokens), KV bytes held and peak."""
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList

    from toolkit.kvcompress.press import KVPress

    class Clock(StoppingCriteria):
        def __init__(self):
            self.times = []

        def __call__(self, input_ids, scores, **kwargs):
            self.times.append(time.perf_counter())
            return torch.zeros(input_ids.shape[0], dtype=torch.bool)

    press = press or KVPress("full")
    clock = Clock()
    with torch.no_grad(), press(model):
        t0 = time.perf_counter()
        model.generate(ids, max_new_tokens=new_tokens + 1, min_new_tokens=new_tokens + 1, do_sample=False,
                       pad_token_id=0, attention_mask=torch.ones_like(ids),
                       stopping_criteria=StoppingCriteriaList([clock]))
    cache = press.last_cache
    decode_s = max(clock.times[-1] - clock.times[0], 1e-9)
    return {"kv_bytes": cache.stored_bytes(), "peak_kv_bytes": cache.peak_bytes,
            "decode_tokens_per_s": new_tokens / decode_s, "prefill_s": round(clock.times[0] - t0, 3)}


def main() -> dict:
    import torch

    from toolkit.kvcompress.press import KVPress

    torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    model, scores, source = load()
    vocab = model.config.vocab_size
    rows = []
    for n in LENGTHS:
        g = torch.Generator().manual_seed(n)
        ids = torch.randint(20, vocab, (1, n), generator=g)
        full = run_one(model, ids, None, NEW_TOKENS)
        head = run_one(model, ids, KVPress("headkv", budget=BUDGET, head_scores=scores), NEW_TOKENS)
        row = {"context": n, "full_kv_bytes": full["kv_bytes"], "headkv_kv_bytes": head["kv_bytes"],
               "full_peak_kv_bytes": full["peak_kv_bytes"], "headkv_peak_kv_bytes": head["peak_kv_bytes"],
               "full_prefill_s": full["prefill_s"], "headkv_prefill_s": head["prefill_s"],
               "full_decode_tok_s": round(full["decode_tokens_per_s"], 2),
               "headkv_decode_tok_s": round(head["decode_tokens_per_s"], 2),
               "memory_ratio_full_over_headkv": round(full["kv_bytes"] / head["kv_bytes"], 2),
               "speed_ratio_headkv_over_full": round(head["decode_tokens_per_s"] / full["decode_tokens_per_s"], 2)}
        rows.append(row)
        print(f"context {n:5d}: KV full {full['kv_bytes'] / 2**20:7.2f} MiB  headkv {head['kv_bytes'] / 2**20:6.3f} MiB"
              f"  (x{row['memory_ratio_full_over_headkv']})   decode tok/s full {row['full_decode_tok_s']:7.1f}"
              f"  headkv {row['headkv_decode_tok_s']:7.1f}", flush=True)
    flat = max(r["headkv_kv_bytes"] for r in rows) == min(r["headkv_kv_bytes"] for r in rows)
    result = {"system": "kvcompress", "model": source, "budget_per_head": BUDGET, "new_tokens": NEW_TOKENS,
              "rows": rows, "headkv_memory_flat": flat,
              "note": ("kv_bytes: keys+values held after generation, all layers; peak_kv_bytes: largest footprint "
                       "during the run (headkv holds one dense layer between its prefill and its compression); "
                       "decode tok/s timed between generated tokens, prefill excluded")}
    out = ROOT / "bench-results" / "kvcompress.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(f"headkv memory flat across context lengths: {flat}; wrote {out.relative_to(ROOT)}")
    return result


if __name__ == "__main__":
    main()
