"""Training data and LoRA fine-tuning for the binary selector.

Pairs come from training-set candidate pools: candidates are clustered by execution result,
clusters are marked correct or wrong against the gold query (BIRD EX), and one representative
of a correct cluster is paired with one of a wrong cluster, in both orders (label A or B).
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.chase_sql.data import Dataset
from toolkit.chase_sql.evaluation import bird_ex
from toolkit.chase_sql.executor import Executor
from toolkit.chase_sql.learned.pairwise import pair_text
from toolkit.chase_sql.pipeline import tables_of
from toolkit.chase_sql.prompts import select_prompt
from toolkit.chase_sql.schema import Schema, load_schema
from toolkit.chase_sql.selection import clusters, result_text
from toolkit.core.errors import InputError

PAIR_UNITS = ("cluster", "sql")


def build_pairs(predictions: list[dict[str, Any]], ds: Dataset, seed: int = 0,
                max_per_question: int = 8, unit: str = "cluster") -> list[dict[str, Any]]:
    """Labelled A/B pairs, both orders, from pools holding right and wrong executable candidates. `unit`
    "cluster" pairs the first candidates of a right and a wrong result cluster; "sql" pairs any right and
    wrong candidates of distinct SQL text."""
    if unit not in PAIR_UNITS:
        raise InputError(f"--pair-unit {unit!r}: expected one of {', '.join(PAIR_UNITS)}")
    gold_by_qid = {e.qid: e for e in ds.examples}
    executor = Executor()
    schemas: dict[str, Schema] = {}
    rng = random.Random(seed)
    pairs = []
    for rec in predictions:
        e = gold_by_qid.get(str(rec.get("qid")))
        if e is None:
            continue
        gold = executor.run(e.db_path, e.gold)
        if gold.error is not None:
            continue
        cands = rec.get("candidates") or []
        results = [executor.run(e.db_path, c["sql"]) for c in cands]
        ids = clusters(results)
        reps: dict[Any, int] = {}
        for i, cid in enumerate(ids):
            if cid >= 0:
                reps.setdefault(cid if unit == "cluster" else " ".join(cands[i]["sql"].split()), i)
        good = [i for i in reps.values() if bird_ex(results[i], gold)]
        bad = [i for i in reps.values() if not bird_ex(results[i], gold)]
        combos = [(g, b) for g in good for b in bad]
        rng.shuffle(combos)
        if str(e.db_path) not in schemas:
            schemas[str(e.db_path)] = load_schema(e.db_path)
        schema = schemas[str(e.db_path)]
        for g, b in combos[: max_per_question // 2]:
            used = tables_of(cands[g]["sql"]) | tables_of(cands[b]["sql"])
            shown = Schema([t for t in schema.tables if t.name.lower() in used]).render() if used else schema.render()
            for first, second, label in ((g, b, "A"), (b, g, "B")):
                msgs = select_prompt(shown, e.question, e.evidence, cands[first]["sql"], result_text(results[first]),
                                     cands[second]["sql"], result_text(results[second]))
                text = pair_text(e.question, e.evidence, cands[first]["sql"], result_text(results[first]),
                                 cands[second]["sql"], result_text(results[second]))
                pairs.append({"qid": e.qid, "messages": msgs, "text": text, "label": label})
    executor.close()
    return pairs


@dataclass
class TrainConfig:
    epochs: int = 3
    lr: float = 1e-3
    rank: int = 8
    alpha: int = 16
    dropout: float = 0.0
    batch_size: int = 8
    max_length: int = 1024
    device: str = "auto"
    seed: int = 0


def _target_modules(model) -> list[str]:
    names = {n.rsplit(".", 1)[-1] for n, _ in model.named_modules()}
    for group in (["q_proj", "v_proj"], ["c_attn"], ["query", "value"], ["qkv_proj"]):
        if all(g in names for g in group):
            return group
    raise InputError("cannot find attention projections (q_proj/v_proj, c_attn, query/value) for LoRA")


def train_lora_selector(pairs: list[dict[str, Any]], model_dir: str | Path, out: str | Path,
                        cfg: TrainConfig) -> dict[str, Any]:
    """Train LoRA so the next-token logits prefer the right letter; returns loss/accuracy figures."""
    import torch
    from peft import LoraConfig, get_peft_model

    from toolkit.chase_sql.selector_model import pair_logits, render_messages
    from toolkit.core.models import load_causal_lm, seed_everything

    if not pairs:
        raise InputError("no training pairs: the pools hold no question with both a correct and a wrong result")
    seed_everything(cfg.seed)
    base, tok, device = load_causal_lm(model_dir, device=cfg.device)
    model = get_peft_model(base, LoraConfig(r=cfg.rank, lora_alpha=cfg.alpha, lora_dropout=cfg.dropout,
                                            target_modules=_target_modules(base), task_type="CAUSAL_LM"))
    texts = [render_messages(tok, p["messages"]) for p in pairs]
    labels = torch.tensor([0 if p["label"] == "A" else 1 for p in pairs], dtype=torch.long)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=cfg.lr)
    rng = random.Random(cfg.seed)

    def accuracy() -> float:
        model.eval()
        right = 0
        with torch.no_grad():
            for s in range(0, len(texts), cfg.batch_size):
                lg = pair_logits(model, tok, texts[s:s + cfg.batch_size], cfg.max_length, device)
                right += int((lg.argmax(-1).cpu() == labels[s:s + cfg.batch_size]).sum())
        return right / len(texts)

    start = time.perf_counter()
    acc_before = accuracy()
    losses = []
    for _ in range(cfg.epochs):
        model.train()
        order = list(range(len(texts)))
        rng.shuffle(order)
        for s in range(0, len(order), cfg.batch_size):
            batch = order[s:s + cfg.batch_size]
            lg = pair_logits(model, tok, [texts[i] for i in batch], cfg.max_length, device)
            loss = torch.nn.functional.cross_entropy(lg.float(), labels[batch].to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
    acc_after = accuracy()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    (out / "selector.json").write_text(json.dumps({
        "base_model": str(Path(model_dir).resolve()), "max_length": cfg.max_length, "pairs": len(pairs),
        "epochs": cfg.epochs, "rank": cfg.rank, "lr": cfg.lr, "seed": cfg.seed}, indent=1))
    k = max(1, len(losses) // 5)
    return {"pairs": len(pairs), "steps": len(losses), "loss_first": round(sum(losses[:k]) / k, 4),
            "loss_last": round(sum(losses[-k:]) / k, 4), "train_accuracy_before": round(acc_before, 4),
            "train_accuracy_after": round(acc_after, 4), "seconds": round(time.perf_counter() - start, 2)}
