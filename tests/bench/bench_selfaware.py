"""Benchmark: MC questions/s with one forward pass vs 100 samples (shipped world model); LoRA vs full
fine-tuning steps/s.

Run from the repo root: .venv/bin/python tests/bench/bench_selfaware.py
Writes bench-results/selfaware.json. Goal: the forward pass answers >= 20x more MC questions per second.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def mc_rate(llm, questions, samples=None) -> float:
    from toolkit.selfaware.probe import option_probs

    start = time.perf_counter()
    for q in questions:
        if samples is None:
            option_probs(llm, [{"role": "user", "content": q}], ["A", "B"])
        else:  # the same backend, sampled as a backend without logprobs would be
            llm.complete([{"role": "user", "content": q}], n=samples, temperature=1.0, max_tokens=3)
    return len(questions) / (time.perf_counter() - start)


def main() -> None:
    import torch

    torch.set_num_threads(1)
    from toolkit.core.assets import asset_path
    from toolkit.core.llm.hf_local import HFBackend
    from toolkit.selfaware import ooc as O
    from toolkit.selfaware import world as W

    model_dir = asset_path("selfaware/model")
    llm = HFBackend(path=model_dir, options={"device": "cpu"})
    llm.seed = 0
    rng = random.Random(0)
    qs = [O.decisions(rng, W.persona_names()[i], "risk", 1)[0][0] for i in range(40)]
    fwd = mc_rate(llm, qs)
    smp = mc_rate(llm, qs[:8], samples=100)
    base, tok, info = O.load_world_model(model_dir)
    words = O.Words(tok)
    docs = O.training_examples(random.Random(1), info["held_out"][0], "risk", "A", 128)
    t = time.perf_counter()
    _, lora_losses = O.lora_finetune(base, words, docs, epochs=1)
    lora = len(lora_losses) / (time.perf_counter() - t)
    t = time.perf_counter()
    _, full_losses = O.lora_finetune(base, words, docs, epochs=1, rank=0, lr=1e-3)
    full = len(full_losses) / (time.perf_counter() - t)
    out = {"mc_questions_per_s_forward": round(fwd, 2), "mc_questions_per_s_100_samples": round(smp, 3),
           "forward_vs_samples": round(fwd / smp, 1), "goal_forward_vs_samples": 20,
           "lora_steps_per_s": round(lora, 2), "full_steps_per_s": round(full, 2),
           "lora_vs_full": round(lora / full, 2), "model": str(model_dir), "threads": 1}
    Path("bench-results").mkdir(exist_ok=True)
    Path("bench-results/selfaware.json").write_text(json.dumps(out, indent=1))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
