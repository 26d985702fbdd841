"""Train the SQL generator from a transformers config, on texts from training worlds, for a wall-clock budget.

One model plays every stage the pipeline asks of an LLM (keywords, synthetic examples, the three
generators, the fixer); the stages are mixed in every epoch. Loss is on the answer tokens only.
"""

from __future__ import annotations

import json
import math
import random
import time
from pathlib import Path

from toolkit.chase_sql.learned.corpus import TrainText, world_texts
from toolkit.chase_sql.learned.encoding import Speller
from toolkit.chase_sql.learned.template import SUPERSEDED, TEMPLATES
from toolkit.core import console

MODEL_SHAPE = {"hidden_size": 192, "intermediate_size": 512, "num_hidden_layers": 4, "num_attention_heads": 4}
MAX_POSITIONS = 4096
LM_WEIGHT = 0.25
# With copy_drills: this share of the budget opens with drills only, then one step in DRILL_EVERY is a drill,
# and texts over MAX_TRAIN_TOKENS (a few full-schema prompts, the costliest) are left out.
DRILL_SHARE = 0.08
DRILL_EVERY = 8
MAX_TRAIN_TOKENS = 1800


def build_tokenizer(rendered: list[str], vocab_size: int, schema: str = "full"):
    from toolkit.core.tokenizers import piece_tokenizer

    tok = piece_tokenizer(rendered, vocab_size)
    tok.chat_template = TEMPLATES[schema]
    return tok


def render(tok, t: TrainText) -> str:
    return tok.apply_chat_template(t.messages, tokenize=False, add_generation_prompt=True)


def token_batches(lengths: list[int], max_tokens: int, rng: random.Random) -> list[list[int]]:
    """Indices grouped by similar length so that padded batches hold about `max_tokens` tokens."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], rng.random()))
    batches, cur = [], []
    for i in order:
        if cur and (len(cur) + 1) * lengths[i] > max_tokens:
            batches.append(cur)
            cur = []
        cur.append(i)
    if cur:
        batches.append(cur)
    rng.shuffle(batches)
    return batches


def answer_loss(model, seqs: list[tuple[list[int], int]], pad_id: int, lm_weight: float = LM_WEIGHT):
    """Mean next-token loss over the answer tokens, plus `lm_weight` times the loss over the prompt's own
    tokens (schemas repeat their names: predicting them teaches copying, with many more targets per step)."""
    import torch

    width = max(len(ids) for ids, _ in seqs)
    ids = torch.full((len(seqs), width), pad_id, dtype=torch.long)
    answer = torch.zeros_like(ids, dtype=torch.bool)
    prompt = torch.zeros_like(answer)
    for b, (row, start) in enumerate(seqs):
        ids[b, : len(row)] = torch.tensor(row)
        answer[b, start - 1: len(row) - 1] = True  # positions that predict the answer tokens
        prompt[b, : start - 1] = True
    mask = (ids != pad_id).long()
    gold = torch.roll(ids, -1, dims=1)
    if hasattr(model, "log_probs"):  # the copy-head LM: its output mixes the vocabulary and pointing
        logp = model.log_probs(ids, mask)

        def nll(where):
            return torch.nn.functional.nll_loss(logp[where], gold[where])
    else:
        hidden = model.model(input_ids=ids, attention_mask=mask).last_hidden_state

        def nll(where):
            return torch.nn.functional.cross_entropy(model.lm_head(hidden[where]), gold[where])
    loss = nll(answer)
    if lm_weight:
        loss = loss + lm_weight * nll(prompt)
    return loss


def copy_drill(rng: random.Random, letter_ids: list[int], tok, batch: int = 32) -> list[tuple[list[int], int]]:
    """Random runs of word pieces, then the same run again: the second copy is the answer. Copying a name
    seen earlier in the context is what the generator must do with every table, column and value."""
    cue = tok.backend_tokenizer.encode("\n=>\n", add_special_tokens=False).ids
    seqs = []
    for _ in range(batch):
        x = [rng.choice(letter_ids) for _ in range(rng.randint(6, 40))]
        head = [tok.bos_token_id] + x + cue
        seqs.append((head + x + [tok.eos_token_id], len(head)))
    return seqs


def take_step(model, opt, loss, step: int, epoch: int, t0: float, log: list[dict], every: int = 25) -> int:
    """One clipped optimizer step; every `every` steps the loss goes to the log and stderr. Returns step + 1."""
    import torch

    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if (step + 1) % every == 0:
        log.append({"step": step + 1, "epoch": epoch, "loss": round(float(loss.detach()), 4),
                    "elapsed_s": round(time.time() - t0, 1)})
        console.info(json.dumps(log[-1]))
    return step + 1


def train_generator(worlds: list[Path], out: Path, *, minutes: float, seed: int = 0, vocab_size: int = 2000,
                    lr: float = 2e-3, batch_tokens: int = 4000, copy_drills: bool = False,
                    schema: str = "full", copy_head: bool = False, init: Path | None = None) -> dict:
    """Train from scratch, or with `init` continue a generator saved by an earlier chunk: its tokenizer, chat
    template, shape and weights are kept (the optimizer starts afresh with its warm-up), so a long training runs
    as a chain of chunks, `--init` of each the `--out` of the one before."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from toolkit.core.copy_lm import CopyLlamaConfig, CopyLlamaForCausalLM
    from toolkit.core.models import seed_everything

    seed_everything(seed)
    rng = random.Random(seed)
    start = time.time()
    texts = [t for i, w in enumerate(worlds) for t in world_texts(w, seed + i)]
    if init is not None:
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(init)
        if tok.chat_template in SUPERSEDED:  # an earlier rendering of the same schema format: train on the current
            tok.chat_template = TEMPLATES[SUPERSEDED[tok.chat_template]]
        copy_head = json.loads((init / "config.json").read_text()).get("model_type") == "copy_llama"
        schema = next((k for k, v in TEMPLATES.items() if v == tok.chat_template), "custom")
    else:
        tok = build_tokenizer([_plain_render(t) for t in texts], vocab_size, schema)
    prompts = [render(tok, t) for t in texts]
    speller = Speller(tok)
    lengths = [len(speller.encode(p, t.target, None)[0]) for p, t in zip(prompts, texts, strict=True)]
    keep = [i for i, n in enumerate(lengths) if n <= MAX_TRAIN_TOKENS or not copy_drills]
    texts, prompts, lengths = [texts[i] for i in keep], [prompts[i] for i in keep], [lengths[i] for i in keep]
    letter_ids = [i for t, i in tok.get_vocab().items() if t.isalpha()]
    config_class, model_class = ((CopyLlamaConfig, CopyLlamaForCausalLM) if copy_head
                                 else (LlamaConfig, LlamaForCausalLM))
    config = config_class(vocab_size=len(tok), max_position_embeddings=MAX_POSITIONS, tie_word_embeddings=True,
                         num_key_value_heads=MODEL_SHAPE["num_attention_heads"], rope_theta=10000.0,
                         pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id,
                         eos_token_id=tok.eos_token_id, attn_implementation="sdpa", **MODEL_SHAPE)
    model = model_class.from_pretrained(init, attn_implementation="sdpa") if init is not None else model_class(config)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    budget, step, epoch, log = minutes * 60.0, 0, 0, []  # epoch: passes over the texts begun
    t0 = time.time()
    console.info(f"{len(texts)} texts, {sum(lengths)} tokens an epoch, "
                 f"{sum(p.numel() for p in model.parameters())} parameters; corpus built in {t0 - start:.0f} s")
    model.train()
    batches: list[list[int]] = []
    while (frac := (time.time() - t0) / budget) < 1.0:
        for g in opt.param_groups:  # warm-up, then cosine to 5% over the wall-clock budget
            g["lr"] = lr * min(1.0, (step + 1) / 40) * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * frac)))
        drill = copy_drills and (frac < DRILL_SHARE or step % DRILL_EVERY == 0)
        if drill:
            seqs = copy_drill(rng, letter_ids, tok)
        else:
            if not batches:
                batches = token_batches(lengths, batch_tokens, rng)
                epoch += 1
            seqs = [speller.encode(prompts[i], texts[i].target, rng) for i in batches.pop()]
        loss = answer_loss(model, seqs, tok.pad_token_id, 0.0 if drill else LM_WEIGHT)  # drill prompts are noise
        step = take_step(model, opt, loss, step, epoch, t0, log)
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    summary = {"worlds": [str(w) for w in worlds], "texts": len(texts), "minutes": minutes, "steps": step,
               "epochs_started": epoch, "texts_used": len(texts), "copy_drills": copy_drills,
               "copy_head": copy_head, "schema_format": schema, "init": str(init) if init else None,
               "seed": seed, "lr": lr,
               "batch_tokens": batch_tokens, "lm_weight": LM_WEIGHT,
               "vocab_size": len(tok), "params": sum(p.numel() for p in model.parameters()),
               "train_seconds": round(time.time() - t0, 1), "log": log}
    (out / "training_log.json").write_text(json.dumps(summary, indent=1))
    return summary


def _plain_render(t: TrainText) -> str:
    """Prompt text for learning the tokenizer's pieces (the template's output without special tokens)."""
    return "\n".join(m["content"] for m in t.messages) + "\n" + t.target
