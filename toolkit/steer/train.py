"""Train the small shipped GPT-NeoX (Pythia architecture) model on the three task families.

The tokenizer is a word-level one built locally from the tasks' vocabulary; the loss is the
answer token's cross-entropy plus a small weight on the other tokens (the format). Training
stops after a fixed number of steps on purpose: the model must stay clearly imperfect, so a
control vector has something to improve.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from toolkit.core import console
from toolkit.core.tokenizers import SPECIALS
from toolkit.steer.tasks import FAMILIES, generate, iter_training_text, vocabulary


@dataclass
class TrainConfig:
    steps: int = 800
    batch: int = 64
    lr: float = 2e-3
    hidden: int = 96
    layers: int = 4
    heads: int = 4
    intermediate: int = 384
    format_weight: float = 0.2
    seed: int = 0
    threads: int = 1


def build_tokenizer():
    """Whitespace word-level fast tokenizer over the task vocabulary (no downloads)."""
    from toolkit.core.tokenizers import word_tokenizer

    tok = word_tokenizer([*SPECIALS, *vocabulary()])
    tok.padding_side = "left"
    return tok


def build_model(tok, cfg: TrainConfig):
    import torch
    from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

    torch.manual_seed(cfg.seed)
    config = GPTNeoXConfig(vocab_size=len(tok), hidden_size=cfg.hidden, num_hidden_layers=cfg.layers,
                           num_attention_heads=cfg.heads, intermediate_size=cfg.intermediate,
                           max_position_embeddings=64, rotary_pct=0.25, use_parallel_residual=True,
                           pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id,
                           eos_token_id=tok.eos_token_id, tie_word_embeddings=False)
    return GPTNeoXForCausalLM(config)


def _batch(tok, items: list[tuple[str, str]]):
    """Right-padded ids, a mask, and the position of each answer token."""
    import torch

    seqs = [tok(f"{p} {a}", add_special_tokens=False)["input_ids"] + [tok.eos_token_id] for p, a in items]
    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), tok.pad_token_id, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s)
        mask[i, : len(s)] = 1
    answer_pos = torch.tensor([len(s) - 2 for s in seqs])
    return ids, mask, answer_pos


def train(out: str | Path, cfg: TrainConfig, eval_every: int = 200, n_eval: int = 200) -> dict:
    """Train and save model + tokenizer + train_log.json to `out`; returns the final log."""
    import torch

    torch.set_num_threads(cfg.threads)
    tok = build_tokenizer()
    model = build_model(tok, cfg)
    held_out = {p.prompt for f in FAMILIES for s in ("validation", "test") for p in generate(f, s, 1000, cfg.seed)}
    stream = iter_training_text(cfg.seed)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.01, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 100) * max(0.05, 1 - s / cfg.steps))
    log: dict = {"config": asdict(cfg), "evals": []}
    start = time.time()
    model.train()
    for step in range(1, cfg.steps + 1):
        items = []
        while len(items) < cfg.batch:
            p, a = next(stream)
            if p not in held_out:
                items.append((p, a))
        ids, mask, answer_pos = _batch(tok, items)
        logits = model(input_ids=ids, attention_mask=mask).logits
        logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
        target = ids[:, 1:]
        tok_lp = logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        valid = mask[:, 1:].bool()
        rows = torch.arange(len(items))
        answer_lp = tok_lp[rows, answer_pos - 1]
        fmt = (tok_lp * valid).sum() / valid.sum()
        loss = -answer_lp.mean() - cfg.format_weight * fmt
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % eval_every == 0 or step == cfg.steps:
            accs = quick_accuracy(model, tok, cfg.seed, n_eval)
            model.train()
            entry = {"step": step, "loss": round(float(loss.detach()), 4), "seconds": round(time.time() - start, 1),
                     "validation_accuracy": accs}
            log["evals"].append(entry)
            console.info(f"step {step}: loss {float(loss.detach()):.3f} val acc {accs} ({entry['seconds']} s)")
    model.eval()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    (out / "train_log.json").write_text(json.dumps(log, indent=1) + "\n", encoding="utf-8")
    return log


def quick_accuracy(model, tok, seed: int, n: int) -> dict:
    """Validation accuracy per family (argmax over option logits), used for the training log."""
    from toolkit.steer.scoring import score_problems

    model.eval()
    return {f: round(score_problems(model, tok, generate(f, "validation", n, seed)).accuracy, 3) for f in FAMILIES}
