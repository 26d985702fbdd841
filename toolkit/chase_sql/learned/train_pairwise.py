"""Fine-tune the pairwise selector on pairs in both orders: the generator's trunk plus a new two-way head, or a
selector trained here (trunk and head) continued on more pairs.

A tenth of the training questions is held out (all pairs of a question on one side), to report
accuracy and A/B-swap agreement on questions the selector did not train on. With `swap_weight` > 0 each batch holds
both orders of its pairs and the loss adds swap_weight x mean (P(A | a, b) + P(A | b, a) - 1)^2: a verdict that
follows the position instead of the candidates costs, on top of the cross-entropy of each order.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from toolkit.chase_sql.learned.pairwise import KIND, META, encode_pairs, pair_counts
from toolkit.chase_sql.learned.train_generator import take_step
from toolkit.core.errors import InputError


def split_by_question(pairs: list[dict], share: float, seed: int) -> tuple[list[dict], list[dict]]:
    qids = sorted({p["qid"] for p in pairs})
    random.Random(seed).shuffle(qids)
    held = set(qids[: max(1, int(len(qids) * share))]) if len(qids) > 1 else set()
    return [p for p in pairs if p["qid"] not in held], [p for p in pairs if p["qid"] in held]


def accuracy_and_swap(model, tok, pairs: list[dict], max_length: int, batch: int = 32) -> dict[str, Any]:
    """Accuracy over pairs, and the share of (A,B)/(B,A) twins whose two verdicts pick the same candidate."""
    import torch

    probs = []
    with torch.no_grad():
        for s in range(0, len(pairs), batch):
            ids, mask = encode_pairs(tok, [p["text"] for p in pairs[s:s + batch]], max_length)
            probs += model(input_ids=ids, attention_mask=mask).logits.softmax(-1)[:, 0].tolist()
    right, agree, twins = pair_counts(probs, pairs)
    return {"n": len(pairs), "accuracy": round(right / max(1, len(pairs)), 4),
            "swap_agreement": round(agree / max(1, twins), 4)}


def twin_units(pairs: list[dict]) -> list[list[int]]:
    """Indices grouped as (pair, the same pair swapped) where `build_pairs` wrote them so; a record without its
    twin is a unit of its own."""
    units, i = [], 0
    while i < len(pairs):
        twin = (i + 1 < len(pairs) and pairs[i]["qid"] == pairs[i + 1]["qid"]
                and pairs[i]["label"] != pairs[i + 1]["label"])
        units.append([i, i + 1] if twin else [i])
        i += 2 if twin else 1
    return units


def swap_penalty(prob_a, firsts: list[int]):
    """Mean (P(A | a, b) + P(A | b, a) - 1)^2 over the twins whose first order sits at `firsts` (the swapped one
    right after it)."""
    import torch

    if not firsts:
        return prob_a.sum() * 0.0
    first = torch.tensor(firsts)
    return ((prob_a[first] + prob_a[first + 1] - 1.0) ** 2).mean()


def load_for_training(base: Path, tok):
    """The selector to train and whether its A/B head came with it: a selector trained here (its `selector.json`)
    keeps its head; a generator's trunk gets a new one."""
    from transformers import LlamaConfig, LlamaForSequenceClassification

    # read as a plain Llama config: a copy-head generator's trunk is a Llama, and the selector must load as one
    config = LlamaConfig.from_pretrained(str(base), num_labels=2, pad_token_id=tok.pad_token_id,
                                         local_files_only=True)
    model, info = LlamaForSequenceClassification.from_pretrained(str(base), config=config, local_files_only=True,
                                                                 output_loading_info=True)
    head_loaded = not any(k.startswith("score.") for k in info.get("missing_keys", []))
    if (base / META).is_file() and not head_loaded:
        raise InputError(f"--model {base}: a selector whose A/B head (score.weight) did not load")
    return model, head_loaded


def train_pairwise(pairs: list[dict], generator_dir: str | Path, out: str | Path, *, minutes: float,
                   lr: float = 3e-4, batch: int = 16, max_length: int = 384, seed: int = 0,
                   swap_weight: float = 0.0) -> dict[str, Any]:
    import torch
    from transformers import AutoTokenizer

    from toolkit.core.models import check_model_dir, quiet_library_logs, seed_everything

    if not pairs:
        raise InputError("no training pairs: the pools hold no question with both a correct and a wrong result")
    seed_everything(seed)
    quiet_library_logs()
    base = check_model_dir(generator_dir)
    tok = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
    model, head_loaded = load_for_training(base, tok)
    train, held = split_by_question(pairs, 0.1, seed)
    # units of one record, or with the swap term both orders of a pair side by side in one batch
    units = twin_units(train) if swap_weight > 0 else [[i] for i in range(len(train))]
    per_batch = max(1, batch // 2) if swap_weight > 0 else batch
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    rng = random.Random(seed)
    t0, step, epoch, log = time.time(), 0, 0, []
    model.train()
    while time.time() - t0 < minutes * 60:
        order = list(range(len(units)))
        rng.shuffle(order)
        for s in range(0, len(order), per_batch):
            if time.time() - t0 >= minutes * 60:
                break
            chosen = [units[u] for u in order[s:s + per_batch]]
            items = [train[i] for u in chosen for i in u]
            starts = [sum(len(u) for u in chosen[:k]) for k in range(len(chosen))]
            firsts = [at for at, u in zip(starts, chosen, strict=True) if len(u) == 2]
            ids, mask = encode_pairs(tok, [p["text"] for p in items], max_length)
            labels = torch.tensor([0 if p["label"] == "A" else 1 for p in items])
            logits = model(input_ids=ids, attention_mask=mask).logits
            loss = torch.nn.functional.cross_entropy(logits, labels)
            if swap_weight > 0:
                loss = loss + swap_weight * swap_penalty(logits.softmax(-1)[:, 0], firsts)
            step = take_step(model, opt, loss, step, epoch, t0, log)
        epoch += 1
    model.eval()
    report = {"pairs": len(pairs), "train_pairs": len(train), "held_out_pairs": len(held), "steps": step,
              "epochs_started": epoch, "minutes": minutes, "lr": lr, "seed": seed, "max_length": max_length,
              "init": str(generator_dir), "head_loaded": head_loaded, "swap_weight": swap_weight,
              "train": accuracy_and_swap(model, tok, train[:400], max_length),
              "held_out": accuracy_and_swap(model, tok, held, max_length) if held else None,
              "train_seconds": round(time.time() - t0, 1)}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    (out / META).write_text(json.dumps({"kind": KIND, "base": base.name, **report, "log": log}, indent=1))
    return report
