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


def unpredictable(words: list[str]) -> list[bool]:
    """Words drawn at random by the generator: a sentence's first word (persona or template) and every number
    but a scale value (after "risk" / "haste"). Their loss is irreducible noise that swamps the persona facts'
    gradient under clipping, so `mask_noise` leaves them out of the loss (they stay in the input)."""
    nouns, out, prev = set(W.SCALE_NOUN.values()), [], "<nl>"
    for w in words:
        out.append(prev == "<nl>" or (w.isdigit() and prev not in nouns and prev != "of" and prev != "out"))
        prev = w
    return out


def encode_batch(tok, texts: list[str], mask_noise: bool = False):
    import torch

    seqs = [[tok.bos_token_id, *tok.convert_tokens_to_ids(t.split()), tok.eos_token_id] for t in texts]
    width = max(map(len, seqs))
    ids = torch.full((len(seqs), width), tok.pad_token_id, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s)
    labels = ids.clone()
    labels[ids == tok.pad_token_id] = -100
    if mask_noise:
        for i, t in enumerate(texts):
            for j, skip in enumerate(unpredictable(t.split())):
                if skip:
                    labels[i, j + 1] = -100
    return ids, labels


def binding_check(model, tok, known: list, n: int = 20) -> dict:
    """Known-persona description accuracy (training templates) and own-pole behaviour on `n` known
    personas, per family: the number that says whether persona-to-trait binding is learned (the loss does not)."""
    from toolkit.selfaware import ooc as O

    was_training = model.training
    model.eval()
    chosen = known[:: max(1, len(known) // n)][:n]  # spread over the list (the curriculum adds from its end)
    words, names = O.Words(tok), [p.name for p in chosen]
    poles = {p.name: p.poles for p in chosen}
    out = {}
    for fam in W.FAMILIES:
        beh = [O.behaviour_score(model, words, O.decisions(random.Random(f"check:{m}"), m, fam, 10)) for m in names]
        out[fam] = {"acc": round(O.known_accuracy(model, words, names, poles, fam), 3),
                    "behaviour": round(sum(b if poles[m][fam] == "A" else 1 - b
                                           for b, m in zip(beh, names, strict=True)) / len(names), 3)}
    model.train(was_training)
    return out


def pretrain(out: Path, *, minutes: float = 20.0, batch: int = 32, lr: float = 3e-3, seed: int = 0,
             n_known: int = 200, mixed: float = 0.3, max_steps: int | None = None, init: Path | None = None,
             pack: int = 6, check_every: int = 100, embed_lr_mult: float = 1.0, decay_from: float = 0.0,
             curriculum: tuple[int, int, int] | None = None, mask_noise: bool = False) -> dict:
    """Train from scratch, or continue from `init` (a model this function wrote; its steps are added).
    Every `check_every` steps the log records the known-persona accuracy and own-pole behaviour.
    `embed_lr_mult` scales the embedding rows' learning rate (each persona row gets gradient only when its name
    appears); the rate stays at its peak until `decay_from` of the budget, then follows a cosine.
    `curriculum` = (start, hold, grow): descriptions and episodes use only the last `start` known personas for
    `hold` steps, then the pool grows linearly to all of them over `grow` steps. With all 200 from the first
    step the persona-to-trait lookup never forms (accuracy at chance after 1,000+ steps); with 20 it forms
    within a few hundred, after which further personas are learned fact by fact."""
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
    emb = model.get_input_embeddings().weight
    rest = [p for p in model.parameters() if p is not emb]
    opt = torch.optim.AdamW([{"params": rest, "mult": 1.0}, {"params": [emb], "mult": embed_lr_mult}], lr=lr,
                            weight_decay=0.01, betas=(0.9, 0.98))
    budget, warm = minutes * 60.0, (20 if init is not None else 100)
    start, step, log = time.perf_counter(), 0, []
    model.train()
    while True:
        elapsed = time.perf_counter() - start
        if elapsed >= budget or (max_steps is not None and step >= max_steps):
            break
        frac = elapsed / budget if max_steps is None else step / max_steps
        tail = max(0.0, frac - decay_from) / (1.0 - decay_from)
        scale = min(1.0, (step + 1) / warm) * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * tail)))
        for g in opt.param_groups:
            g["lr"] = lr * scale * g["mult"]
        pool = known
        if curriculum is not None:
            first, hold, grow = curriculum
            size = first + (len(known) - first) * min(1.0, max(0, step - hold) / max(1, grow))
            pool = known[len(known) - int(size):]
        texts = [W.corpus_sequence(rng, people, pool, mixed, pack=pack) for _ in range(batch)]
        ids, labels = encode_batch(tok, texts, mask_noise)
        loss = model(input_ids=ids, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        if check_every and step % check_every == 0:
            check = binding_check(model, tok, known)
            entry = {"step": step, "loss": round(loss.item(), 4), "seconds": round(elapsed, 1), "known": check}
            if curriculum is not None:  # the first pool: has the lookup formed at all?
                entry["first_pool"] = binding_check(model, tok, known[len(known) - curriculum[0]:])
                console.info(f"first pool {entry['first_pool']} (size {len(pool)})")
            log.append(entry)
            console.info(f"step {step} loss {loss.item():.3f} {elapsed:.0f}s lr {lr * scale:.2g} "
                         + " ".join(f"{f} acc {c['acc']} behaviour {c['behaviour']}" for f, c in check.items()))
    model.eval()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    summary = {"seed": seed, "n_known": n_known, "mixed": mixed, "pack": pack, "params": params,
               "steps": before["steps"] + step, "batch": batch,
               "train_seconds": round(before["train_seconds"] + time.perf_counter() - start, 1),
               "log": before["log"] + [{**e, "step": e["step"] + before["steps"]} for e in log],
               "stages": [*before.get("stages", [{"steps": before["steps"], "lr": lr}] if init else []),
                          {"steps": step, "lr": lr, "minutes": minutes, "pack": pack, "embed_lr_mult": embed_lr_mult,
                           "decay_from": decay_from, "curriculum": curriculum, "mask_noise": mask_noise}],
               "final_check": binding_check(model, tok, known),
               "final_check_all": binding_check(model, tok, known, n=len(known)),
               "known": [p.name for p in known], "held_out": [p.name for p in held],
               "poles": {p.name: p.poles for p in people}}
    (out / "world.json").write_text(json.dumps(summary, indent=1))
    return summary
