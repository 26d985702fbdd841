"""Train the small Llama model on the synthetic retrieval tasks (CPU-friendly), short to long.

The schedule is a curriculum of stages (see `parse_curriculum`): first pure copy drills (a random
chunk repeated, variable length, so only content-based induction solves it) where induction/copy heads
form cheaply on short sequences, then the task mix (single needle, multi-key, two-hop, with copy drills
inside the haystacks) on sequences that grow stage by stage up to the evaluated context lengths
(1k-2k words), so the copy heads learn to stay sharp among thousands of filler tokens. Long sequences
carry more needles and more questions (denser supervision per token of compute).

Length generalization beyond the trained lengths: rope_theta 1e6 leaves the slowest rotary dimensions
almost unrotated over 4k tokens, and a share of the sequences get their position ids stretched
PoSE-style -- one random skip between two filler words -- so relative distances seen in training reach
`max_positions`. At inference the model reads real contexts with ordinary contiguous positions.

Sparse heads: during the task stages a group-lasso penalty (`head_lasso` x the sum over heads of the
joint norm of each query head's q_proj rows and o_proj columns) makes every head pay for being used,
as in head-pruning regularizers: heads the tasks do not need shrink towards zero (their queries flatten,
so they stop attending sharply), and the copy skill concentrates in a few heads instead of being
spread redundantly over a whole layer. The weight can differ per layer (e.g. none on the later layers,
where a latent two-hop answer would need its second hop), and `tasks` sets the task mix (the opt-in
`latent` task included).
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass
from pathlib import Path

from toolkit.core import console
from toolkit.kvcompress.tasks import (
    FILLER,
    SPECIALS,
    TASKS,
    VOCAB,
    WORD_ID,
    build_tokenizer,
    make_example,
    training_sequence,
)

FILLER_IDS = {WORD_ID[w] for w in FILLER}

DEFAULT_CURRICULUM = "800:drill:12,800:48-160:12,300:256-640:4,300:640-1280:2,400:1024-2048:2"


@dataclass(frozen=True)
class Stage:
    """`steps` optimizer steps of `batch` sequences: copy drills, or the task mix at min_len..max_len words."""

    steps: int
    kind: str  # "drill" or "tasks"
    min_len: int
    max_len: int
    batch: int

    def spec(self) -> str:
        what = "drill" if self.kind == "drill" else f"{self.min_len}-{self.max_len}"
        return f"{self.steps}:{what}:{self.batch}"


def parse_curriculum(text: str) -> list[Stage]:
    """'STEPS:drill:BATCH' or 'STEPS:MIN-MAX:BATCH' stages, comma-separated, run in order."""
    stages = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            steps_s, what, batch_s = part.split(":")
            steps, batch = int(steps_s), int(batch_s)
            if what == "drill":
                stage = Stage(steps, "drill", 0, 0, batch)
            else:
                lo, hi = (int(x) for x in what.split("-"))
                stage = Stage(steps, "tasks", lo, hi, batch)
        except ValueError:
            raise ValueError(f"curriculum stage '{part}': expected STEPS:drill:BATCH or STEPS:MIN-MAX:BATCH") from None
        if steps < 1 or batch < 1 or (stage.kind == "tasks" and not 32 <= stage.min_len <= stage.max_len):
            raise ValueError(f"curriculum stage '{part}': steps and batch >= 1, 32 <= MIN <= MAX")
        stages.append(stage)
    if not stages:
        raise ValueError(f"curriculum '{text}': no stages")
    return stages


def model_config(n_layers: int = 4, n_heads: int = 8, n_kv_heads: int = 8, hidden: int = 128,
                 max_positions: int = 4096, rope_theta: float = 1e6, intermediate: int | None = None):
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=len(VOCAB), hidden_size=hidden, intermediate_size=intermediate or 3 * hidden,
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
               repeat_prob: float = 0.5, stretch_prob: float = 0.5, tasks: tuple[str, ...] = TASKS):
    import torch

    length = rng.randint(min_len, max_len)
    seqs = [training_sequence(rng, length, repeat_prob=repeat_prob, tasks=tasks) for _ in range(batch)]
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


def head_norms(model):
    """(layers, heads) tensor: norm of each query head's q_proj rows and o_proj columns together."""
    import torch

    cfg = model.config
    n, dim = cfg.num_attention_heads, cfg.hidden_size // cfg.num_attention_heads
    rows = []
    for layer in model.model.layers:
        attn = layer.self_attn
        q = attn.q_proj.weight.view(n, dim, -1)
        o = attn.o_proj.weight.view(-1, n, dim)
        rows.append(torch.sqrt((q ** 2).sum((1, 2)) + (o ** 2).sum((0, 2))))
    return torch.stack(rows)


def quick_accuracy(model, rng: random.Random, n: int, length: int, tasks: tuple[str, ...] = TASKS,
                   per_task: dict | None = None) -> float:
    """Teacher-forced exact match of the answer tokens on fresh examples (cheap progress signal).

    With `per_task` (a dict), also fills it with each task's accuracy among the same examples.
    """
    import torch

    hits: dict[str, list[int]] = {}
    with torch.no_grad():
        for _ in range(n):
            ex = make_example(rng, rng.choice(tasks), length)
            seq = ex.ids() + ex.answer_ids()
            logits = model(torch.tensor([seq])).logits[0]
            start = len(ex.prompt)
            pred = logits[start - 1: len(seq) - 1].argmax(-1).tolist()
            hits.setdefault(ex.task, []).append(int(pred == seq[start:]))
    if per_task is not None:
        per_task.update({t: round(sum(h) / len(h), 3) for t, h in sorted(hits.items())})
    return sum(sum(h) for h in hits.values()) / n


def lasso_weights(head_lasso: float | str, n_layers: int) -> list[float]:
    """Per-layer group-lasso weights from one number (every layer) or a comma-separated list, one per layer."""
    try:
        parts = [float(x) for x in str(head_lasso).split(",") if x.strip()]
    except ValueError:
        parts = []
    if len(parts) == 1:
        parts = parts * n_layers
    if len(parts) != n_layers or min(parts) < 0:
        raise ValueError(f"'{head_lasso}': expected one weight >= 0, or one per layer ({n_layers})")
    return parts


def train(out: str | Path, *, curriculum: str = DEFAULT_CURRICULUM, max_positions: int = 4096, lr: float = 1e-3,
          seed: int = 0, n_layers: int = 4, n_heads: int = 8, n_kv_heads: int = 8, hidden: int = 128,
          intermediate: int | None = None, log_every: int = 50, progress_file: str | None = None,
          repeat_prob: float = 0.5, stretch_prob: float = 0.25, rope_theta: float = 1e6,
          head_lasso: float | str = 0.08, tasks: tuple[str, ...] = TASKS,
          check_lengths: tuple[int, ...] = (1024, 2048), check_n: int = 24) -> dict:
    """Train from scratch along `curriculum`; save model, tokenizer and training_log.json to `out`.

    `tasks`: the task mix of the task stages (drawn uniformly; repeat a task to weight it). `head_lasso`:
    one group-lasso weight for every layer or one per layer (e.g. none on the later layers).
    """
    import torch
    from transformers import LlamaForCausalLM

    from toolkit.core.models import seed_everything

    stages = parse_curriculum(curriculum)
    lasso = lasso_weights(head_lasso, n_layers)
    eval_tasks = tuple(sorted(set(tasks), key=tasks.index))
    steps = sum(s.steps for s in stages)
    seed_everything(seed)
    rng = random.Random(seed)
    config = model_config(n_layers, n_heads, n_kv_heads, hidden, max_positions, rope_theta, intermediate)
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
    log, t0, step = [], time.time(), 0
    model.train()
    for stage in stages:
        for i in range(stage.steps):
            if stage.kind == "drill":
                ids, labels, pos = copy_batch(rng, stage.batch)
            else:
                ids, labels, pos = make_batch(rng, stage.batch, stage.min_len, stage.max_len, max_positions,
                                              repeat_prob, stretch_prob, tasks)
            loss = model(input_ids=ids, position_ids=pos, labels=labels).loss
            total = loss
            if any(lasso) and stage.kind == "tasks":
                if len(set(lasso)) == 1:  # the scalar form, bit for bit what the shipped model was trained with
                    total = loss + lasso[0] * head_norms(model).sum()
                else:
                    total = loss + (torch.tensor(lasso)[:, None] * head_norms(model)).sum()
            opt.zero_grad(set_to_none=True)
            total.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            if step % log_every == 0 or i == stage.steps - 1:
                length = 256 if stage.kind == "drill" else min(stage.max_len, 1024)
                model.eval()
                by_task: dict = {}
                acc = quick_accuracy(model, random.Random(10_000 + step), 16, length, eval_tasks, by_task)
                model.train()
                entry = {"step": step, "stage": stage.spec(), "loss": round(float(loss.detach()), 4),
                         "acc_len": length, "acc": acc, "acc_tasks": by_task, "elapsed_s": round(time.time() - t0, 1)}
                log.append(entry)
                console.info(json.dumps(entry))
                if progress_file:
                    with open(progress_file, "a", encoding="utf-8") as fh:
                        fh.write(json.dumps(entry) + "\n")
    train_s = round(time.time() - t0, 1)
    model.eval()
    final = {str(n): quick_accuracy(model, random.Random(20_000 + n), check_n, n, eval_tasks) for n in check_lengths}
    per_task = {str(n): {t: quick_accuracy(model, random.Random(30_000 + n), check_n, n, (t,)) for t in eval_tasks}
                for n in check_lengths}
    console.info(f"teacher-forced accuracy after training: {final}; per task: {per_task}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    build_tokenizer().save_pretrained(out)
    norms = head_norms(model).detach()
    summary = {"curriculum": [s.spec() for s in stages], "steps": steps, "rope_theta": rope_theta,
               "head_lasso": lasso[0] if len(set(lasso)) == 1 else lasso,
               "head_norms": [[round(float(x), 3) for x in r] for r in norms],
               "repeat_prob": repeat_prob, "stretch_prob": stretch_prob, "max_positions": max_positions,
               "lr": lr, "seed": seed, "train_seconds": train_s, "final_teacher_forced": final,
               "final_teacher_forced_per_task": per_task, "tasks": list(tasks), "log": log,
               "params": sum(p.numel() for p in model.parameters())}
    (out / "training_log.json").write_text(json.dumps(summary, indent=1))
    return summary
