"""Benchmark: KV memory, bytes read per decode step and decode tokens/s vs context length, full cache vs
HeadKV, Quest and HeadKV+Quest at a fixed budget.

Run from the repo root: .venv/bin/python tests/bench/bench_kvcompress.py [LENGTHS, default 1024,2048,4096,8192]
Writes bench-results/kvcompress.json. Memory must stay flat with headkv while the full cache grows; quest keeps
the whole cache (plus page metadata) and reads a flat amount per step.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

LENGTHS = tuple(int(x) for x in sys.argv[1].split(",")) if len(sys.argv) > 1 else (1024, 2048, 4096, 8192)
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
    steps = max(cache.reads["steps"], 1)
    return {"kv_bytes": cache.stored_bytes(), "peak_kv_bytes": cache.peak_bytes, "page_bytes": cache.page_bytes(),
            "read_bytes_per_token": (cache.reads["kv_bytes"] + cache.reads["meta_bytes"]) / steps,
            "attended_fraction": cache.reads["attended"] / max(cache.reads["context"], 1),
            "decode_tokens_per_s": new_tokens / decode_s, "prefill_s": round(clock.times[0] - t0, 3)}


def main() -> dict:
    import torch

    from toolkit.kvcompress.press import KVPress

    torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    model, scores, source = load()
    vocab = model.config.vocab_size
    rows = []
    presses = {"headkv": lambda: KVPress("headkv", budget=BUDGET, head_scores=scores),
               "quest": lambda: KVPress("quest", budget=BUDGET),
               "headkv+quest": lambda: KVPress("headkv+quest", budget=BUDGET, head_scores=scores)}
    for n in LENGTHS:
        g = torch.Generator().manual_seed(n)
        ids = torch.randint(20, vocab, (1, n), generator=g)
        full = run_one(model, ids, None, NEW_TOKENS)
        row = {"context": n, "full_kv_bytes": full["kv_bytes"], "full_peak_kv_bytes": full["peak_kv_bytes"],
               "full_prefill_s": full["prefill_s"], "full_decode_tok_s": round(full["decode_tokens_per_s"], 2),
               "full_read_bytes_per_token": round(full["read_bytes_per_token"])}
        line = [f"context {n:5d}: full KV {full['kv_bytes'] / 2**20:6.2f} MiB {row['full_decode_tok_s']:6.1f} tok/s"]
        for name, make in presses.items():
            r = run_one(model, ids, make(), NEW_TOKENS)
            row.update({f"{name}_kv_bytes": r["kv_bytes"], f"{name}_peak_kv_bytes": r["peak_kv_bytes"],
                        f"{name}_page_meta_bytes": r["page_bytes"], f"{name}_prefill_s": r["prefill_s"],
                        f"{name}_decode_tok_s": round(r["decode_tokens_per_s"], 2),
                        f"{name}_read_bytes_per_token": round(r["read_bytes_per_token"]),
                        f"{name}_attended_fraction": round(r["attended_fraction"], 4),
                        f"speed_ratio_{name}_over_full": round(r["decode_tokens_per_s"] / full["decode_tokens_per_s"],
                                                               2),
                        f"read_ratio_full_over_{name}": round(full["read_bytes_per_token"] / r["read_bytes_per_token"],
                                                              2)})
            line.append(f"{name} KV {r['kv_bytes'] / 2**20:6.2f} MiB (+{r['page_bytes'] / 2**20:.2f} pages) "
                        f"read/token x{row[f'read_ratio_full_over_{name}']} less, "
                        f"{row[f'{name}_decode_tok_s']:6.1f} tok/s")
        row["memory_ratio_full_over_headkv"] = round(full["kv_bytes"] / row["headkv_kv_bytes"], 2)
        row["quest_page_meta_overhead"] = round(row["quest_page_meta_bytes"] / row["quest_kv_bytes"], 4)
        rows.append(row)
        print("; ".join(line), flush=True)
    flat = max(r["headkv_kv_bytes"] for r in rows) == min(r["headkv_kv_bytes"] for r in rows)
    result = {"system": "kvcompress", "model": source, "budget_per_head": BUDGET, "new_tokens": NEW_TOKENS,
              "rows": rows, "headkv_memory_flat": flat,
              "note": ("kv_bytes: keys+values held after generation, all layers; peak_kv_bytes: largest footprint "
                       "during the run (headkv holds one dense layer between its prefill and its compression); "
                       "page_meta_bytes: quest's per-page min/max keys; read_bytes_per_token: keys, values and "
                       "page metadata one decode step reads (all layers); decode tok/s timed between generated "
                       "tokens, prefill excluded")}
    out = ROOT / "bench-results" / "kvcompress.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(f"headkv memory flat across context lengths: {flat}; wrote {out.relative_to(ROOT)}")
    return result


if __name__ == "__main__":
    main()
