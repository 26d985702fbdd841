"""Fine-tune the pairwise selector: the generator's trunk plus a new two-way head, on pairs in both orders.

A tenth of the training questions is held out (all pairs of a question on one side), to report
accuracy and A/B-swap agreement on questions the selector did not train on.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from toolkit.chase_sql.learned.pairwise import KIND, META, encode_pairs
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
    says_a = [p >= 0.5 for p in probs]
    right = [a == (p["label"] == "A") for a, p in zip(says_a, pairs, strict=True)]
    # build_pairs writes each pair as (A,B) then (B,A): agreement = the two picks are the same candidate
    twins = [(says_a[i], says_a[i + 1]) for i in range(0, len(pairs) - 1, 2)
             if pairs[i]["qid"] == pairs[i + 1]["qid"] and pairs[i]["label"] != pairs[i + 1]["label"]]
    agree = [a != b for a, b in twins]
    return {"n": len(pairs), "accuracy": round(sum(right) / max(1, len(right)), 4),
            "swap_agreement": round(sum(agree) / max(1, len(agree)), 4)}


def train_pairwise(pairs: list[dict], generator_dir: str | Path, out: str | Path, *, minutes: float,
                   lr: float = 3e-4, batch: int = 16, max_length: int = 384, seed: int = 0) -> dict[str, Any]:
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForSequenceClassification

    from toolkit.core.models import check_model_dir, quiet_library_logs, seed_everything

    if not pairs:
        raise InputError("no training pairs: the pools hold no question with both a correct and a wrong result")
    seed_everything(seed)
    quiet_library_logs()
    base = check_model_dir(generator_dir)
    tok = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
    # read as a plain Llama config: a copy-head generator's trunk is a Llama, and the selector must load as one
    config = LlamaConfig.from_pretrained(str(base), num_labels=2, pad_token_id=tok.pad_token_id,
                                         local_files_only=True)
    model = LlamaForSequenceClassification.from_pretrained(str(base), config=config, local_files_only=True)
    train, held = split_by_question(pairs, 0.1, seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    rng = random.Random(seed)
    t0, step, epoch, log = time.time(), 0, 0, []
    model.train()
    while time.time() - t0 < minutes * 60:
        order = list(range(len(train)))
        rng.shuffle(order)
        for s in range(0, len(order), batch):
            if time.time() - t0 >= minutes * 60:
                break
            items = [train[i] for i in order[s:s + batch]]
            ids, mask = encode_pairs(tok, [p["text"] for p in items], max_length)
            labels = torch.tensor([0 if p["label"] == "A" else 1 for p in items])
            loss = torch.nn.functional.cross_entropy(model(input_ids=ids, attention_mask=mask).logits, labels)
            step = take_step(model, opt, loss, step, epoch, t0, log)
        epoch += 1
    model.eval()
    report = {"pairs": len(pairs), "train_pairs": len(train), "held_out_pairs": len(held), "steps": step,
              "epochs_started": epoch, "minutes": minutes, "lr": lr, "seed": seed, "max_length": max_length,
              "train": accuracy_and_swap(model, tok, train[:400], max_length),
              "held_out": accuracy_and_swap(model, tok, held, max_length) if held else None,
              "train_seconds": round(time.time() - t0, 1)}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    (out / META).write_text(json.dumps({"kind": KIND, "base": base.name, **report, "log": log}, indent=1))
    return report
