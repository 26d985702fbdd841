"""Train the small Llama model on the synthetic retrieval tasks (CPU-friendly).

Schedule: `drill_steps` steps of pure copy drills (a random filler chunk repeated, variable length,
so only content-based induction solves it), then the task mix (with a copy drill inside half of the
haystacks). Induction/copy heads form during the drill; the retrieval task reuses them.

Length generalization: rope_theta 1e6 leaves the slowest rotary dimensions almost unrotated over
4k tokens (content channels that do not depend on distance); sequences are short (`min_len`..
`max_len` words) but half of them get their position ids stretched PoSE-style -- one random skip
between two filler words -- so the relative distances seen in training reach `max_positions`. At
inference the model reads real contexts with ordinary contiguous positions.
"""

from __future__ import annotations

import json
import math
import random
import time
from pathlib import Path

from toolkit.core import console
from toolkit.kvcompress.tasks import FILLER, SPECIALS, VOCAB, WORD_ID, build_tokenizer, make_example, training_sequence

FILLER_IDS = {WORD_ID[w] for w in FILLER}


def model_config(n_layers: int = 4, n_heads: int = 6, n_kv_heads: int = 6, hidden: int = 96,
                 max_positions: int = 4096, rope_theta: float = 1e6):
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=len(VOCAB), hidden_size=hidden, intermediate_size=3 * hidden,
                       num_hidden_layers=n_layers, num_attention_heads=n_heads, num_key_value_heads=n_kv_heads,
                       max_position_embeddings=max_positions, rope_theta=rope_theta, tie_word_embeddings=True,
                       pad_token_id=WORD_ID["<pad>"], bos_token_id=WORD_ID["<s>"], eos_token_id=WORD_ID["</s>"])


def stretched_positions(rng: random.Random, ids: list[int], max_positions: int, prob: float = 0.5) -> list[int]:
    """Contiguous positions, or (with probability `prob`) one random skip between two filler words.

    A single skip keeps every local (previous-token) relation intact but one, while the distance across
    it -- typically between a needle and the question -- reaches up to `max_positions`.
    """
    n = len(ids)
    if rng.random() >= prob or n >= max_positions:
        return list(range(n))
    cand = [i for i in range(1, n) if ids[i] in FILLER_IDS and ids[i - 1] in FILLER_IDS]
    if not cand:
        return list(range(n))
    cut = rng.choice(cand)
    gap = rng.randint(0, max_positions - n)
    return [i if i < cut else i + gap for i in range(n)]


def make_batch(rng: random.Random, batch: int, min_len: int, max_len: int, max_positions: int,
               repeat_prob: float = 0.5, stretch_prob: float = 0.5):
    import torch

    length = rng.randint(min_len, max_len)
    seqs = [training_sequence(rng, length, repeat_prob=repeat_prob) for _ in range(batch)]
    width = max(len(s[0]) for s in seqs)
    pad = WORD_ID["<pad>"]
    ids = torch.full((batch, width), pad, dtype=torch.long)
    labels = torch.full((batch, width), -100, dtype=torch.long)
    pos = torch.zeros((batch, width), dtype=torch.long)
    for b, (seq, mask) in enumerate(seqs):
        ids[b, : len(seq)] = torch.tensor(seq)
        p = stretched_positions(rng, seq, max_positions, stretch_prob)
        pos[b, : len(seq)] = torch.tensor(p)
        pos[b, len(seq):] = p[-1] + 1 + torch.arange(width - len(seq))
        for i, m in enumerate(mask):
            if m:
                labels[b, i] = seq[i]
    return ids, labels, pos


def copy_batch(rng: random.Random, batch: int, min_half: int = 16, max_half: int = 32):
    """Pure copy drill: <s> x x with x random words, supervised on the second x (induction warm-up)."""
    import torch

    half = rng.randint(min_half, max_half)
    ids = torch.empty((batch, 1 + 2 * half), dtype=torch.long)
    words = list(range(len(SPECIALS), len(VOCAB)))  # every non-special word: the skill must not be tied to filler
    for b in range(batch):
        x = [rng.choice(words) for _ in range(half)]
        ids[b] = torch.tensor([WORD_ID["<s>"], *x, *x])
    labels = ids.clone()
    labels[:, : half + 2] = -100
    pos = torch.arange(ids.shape[1]).expand(batch, -1)
    return ids, labels, pos


def quick_accuracy(model, rng: random.Random, n: int, length: int) -> float:
    """Teacher-forced exact match of the answer tokens on fresh examples (cheap progress signal)."""
    import torch

    hits = 0
    with torch.no_grad():
        for _ in range(n):
            ex = make_example(rng, rng.choice(("single", "multikey", "twohop")), length)
            seq = ex.ids() + ex.answer_ids()
            logits = model(torch.tensor([seq])).logits[0]
            start = len(ex.prompt)
            pred = logits[start - 1: len(seq) - 1].argmax(-1).tolist()
            hits += pred == seq[start:]
    return hits / n


def train(out: str | Path, *, steps: int = 2000, batch: int = 12, min_len: int = 48, max_len: int = 112,
          max_positions: int = 4096, lr: float = 1e-3, seed: int = 0, n_layers: int = 4, n_heads: int = 6,
          n_kv_heads: int = 6, hidden: int = 96, log_every: int = 25, progress_file: str | None = None,
          repeat_prob: float = 0.5, stretch_prob: float = 0.5, drill_steps: int = 600,
          rope_theta: float = 1e6) -> dict:
    import torch
    from transformers import LlamaForCausalLM

    from toolkit.core.models import seed_everything

    seed_everything(seed)
    rng = random.Random(seed)
    config = model_config(n_layers, n_heads, n_kv_heads, hidden, max_positions, rope_theta)
    config._attn_implementation = "sdpa"
    model = LlamaForCausalLM(config)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    warm = 10

    def lr_at(step: int) -> float:
        if step < warm:
            return (step + 1) / warm
        t = (step - warm) / max(1, steps - warm)
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    log, t0 = [], time.time()
    model.train()
    for step in range(steps):
        if step < drill_steps:
            ids, labels, pos = copy_batch(rng, batch)
        else:
            ids, labels, pos = make_batch(rng, batch, min_len, max_len, max_positions, repeat_prob, stretch_prob)
        loss = model(input_ids=ids, position_ids=pos, labels=labels).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        if (step + 1) % log_every == 0 or step == steps - 1:
            model.eval()
            acc = quick_accuracy(model, random.Random(10_000 + step), 24, 256)
            model.train()
            entry = {"step": step + 1, "loss": round(float(loss.detach()), 4), "acc256": acc,
                     "elapsed_s": round(time.time() - t0, 1)}
            log.append(entry)
            console.info(json.dumps(entry))
            if progress_file:
                with open(progress_file, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(entry) + "\n")
    model.eval()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    build_tokenizer().save_pretrained(out)
    summary = {"rope_theta": rope_theta, "steps": steps, "batch": batch, "repeat_prob": repeat_prob,
               "stretch_prob": stretch_prob,
               "drill_steps": drill_steps, "min_len": min_len, "max_len": max_len,
               "max_positions": max_positions, "lr": lr, "seed": seed, "log": log,
               "params": sum(p.numel() for p in model.parameters())}
    (out / "training_log.json").write_text(json.dumps(summary, indent=1))
    return summary
