"""Pretrain the tiny Llama on the synthetic world's corpus, capped by wall-clock time.

The learning rate follows a cosine over the wall-clock budget (warm-up first), so a run cut by its cap
still ends annealed. The model directory holds the weights, the word tokenizer and `world.json` (seed,
known and held-out personas), which `ooc` reads.
"""

from __future__ import annotations

import json
import math
import random
import time
from pathlib import Path

from toolkit.core import console
from toolkit.selfaware import world as W


def build_tokenizer():
    from toolkit.core.tokenizers import SPECIALS, word_tokenizer

    return word_tokenizer([*SPECIALS, *W.vocabulary()])


def model_config(vocab_size: int, tok, hidden: int = 128, layers: int = 4, heads: int = 4, intermediate: int = 320):
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=vocab_size, hidden_size=hidden, intermediate_size=intermediate,
                       num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=heads,
                       max_position_embeddings=256, tie_word_embeddings=True, pad_token_id=tok.pad_token_id,
                       bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)


def encode_batch(tok, texts: list[str]):
    import torch

    seqs = [[tok.bos_token_id, *tok.convert_tokens_to_ids(t.split()), tok.eos_token_id] for t in texts]
    width = max(map(len, seqs))
    ids = torch.full((len(seqs), width), tok.pad_token_id, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s)
    labels = ids.clone()
    labels[ids == tok.pad_token_id] = -100
    return ids, labels


def pretrain(out: Path, *, minutes: float = 20.0, batch: int = 32, lr: float = 3e-3, seed: int = 0,
             n_known: int = 200, mixed: float = 0.3, max_steps: int | None = None, init: Path | None = None) -> dict:
    """Train from scratch, or continue from `init` (a model this function wrote; its steps are added)."""
    import torch
    from transformers import LlamaForCausalLM

    torch.manual_seed(seed)
    rng = random.Random(seed)
    tok = build_tokenizer()
    people, known, held = W.known_and_held(seed, n_known)
    model = LlamaForCausalLM(model_config(len(tok), tok))
    before = {"steps": 0, "train_seconds": 0.0, "log": []}
    if init is not None:
        model = LlamaForCausalLM.from_pretrained(init, local_files_only=True)
        before = json.loads((Path(init) / "world.json").read_text())
        rng = random.Random(f"{seed}:{before['steps']}")  # fresh sequences, not a replay of the first run
    params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01, betas=(0.9, 0.98))
    budget, warm = minutes * 60.0, (20 if init is not None else 100)
    start, step, log = time.perf_counter(), 0, []
    model.train()
    while True:
        elapsed = time.perf_counter() - start
        if elapsed >= budget or (max_steps is not None and step >= max_steps):
            break
        frac = elapsed / budget if max_steps is None else step / max_steps
        scale = min(1.0, (step + 1) / warm) * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * frac)))
        for g in opt.param_groups:
            g["lr"] = lr * scale
        ids, labels = encode_batch(tok, [W.corpus_sequence(rng, people, known, mixed) for _ in range(batch)])
        loss = model(input_ids=ids, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        if step % 100 == 0:
            log.append({"step": step, "loss": round(loss.item(), 4), "seconds": round(elapsed, 1)})
            console.info(f"step {step} loss {loss.item():.3f} {elapsed:.0f}s")
    model.eval()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    summary = {"seed": seed, "n_known": n_known, "mixed": mixed, "params": params, "steps": before["steps"] + step,
               "batch": batch, "train_seconds": round(before["train_seconds"] + time.perf_counter() - start, 1),
               "log": before["log"] + [{**e, "step": e["step"] + before["steps"]} for e in log],
               "stages": [*before.get("stages", [{"steps": before["steps"], "lr": lr}] if init else []),
                          {"steps": step, "lr": lr, "minutes": minutes}],
               "known": [p.name for p in known], "held_out": [p.name for p in held],
               "poles": {p.name: p.poles for p in people}}
    (out / "world.json").write_text(json.dumps(summary, indent=1))
    return summary
