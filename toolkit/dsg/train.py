"""The tiny primitive model (grounds schema nodes) and the end-to-end baseline (answers abstract questions
directly), both trained answer-only through toolkit.core.vlm_train on generated scenes.

One vocabulary covers primitive and abstract texts, so both models share it. Each image is encoded once
(its pixel values shared by every question about it). Every evaluation logs, per node type, the
validation accuracy next to the majority-answer rate: a tiny VLM that stays at the majority rate answers
from the question's prior, not the image.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from toolkit.core import console
from toolkit.core.errors import InputError
from toolkit.core.tiny_vlm import IMAGE_TOKEN, TinySpec, build_tiny_vlm
from toolkit.core.vlm import load_image, load_vlm
from toolkit.core.vlm_train import SFTConfig, sft
from toolkit.dsg.prompts import clean_answer, direct_question, with_options
from toolkit.dsg.styles import MARKS

TINY_SPEC = TinySpec(image_size=96, vision="swin", vision_hidden=192, vision_layers=4, vision_heads=8,
                     swin_stages=3, swin_window=6, text_hidden=128, text_layers=2, text_heads=4, max_positions=256)
BASE_TEXT = ("USER ASSISTANT " + " ".join(MARKS) + " empty none wall open yes no , . ? : "
             + " ".join(f"r{r}c{c}" for r in range(1, 10) for c in range(1, 10)) + " "
             + " ".join(str(i) for i in range(0, 64)))


def node_type(key: str) -> str:
    """marks[1,2] -> marks."""
    return re.sub(r"\[.*\]$", "", key)


def build(out: str | Path, texts: list[str], seed: int = 0, spec: TinySpec | None = None) -> dict:
    return build_tiny_vlm(out, texts, spec or TINY_SPEC, seed=seed, base_text=BASE_TEXT)


def examples_from(prims: list[dict[str, Any]], items: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """(image, question, answer, kind) rows: primitive questions, plus abstract ones in the direct form."""
    rows = [{"image": p["image"], "question": p["question"], "answer": p["gold"], "kind": node_type(p["node"]),
             "concept": p["concept"]} for p in prims]
    for it in items or []:
        rows.append({"image": it["image"], "question": direct_question(with_options(it["question"], it.get("choices"))),
                     "answer": it["answer"],
                     "kind": it.get("task") or "abstract", "concept": it["concept"], "abstract": True})
    return rows


class Encoder:
    """Token tensors per question; pixel values once per image."""

    def __init__(self, vlm):
        self.vlm = vlm
        self.pixels: dict[str, Any] = {}
        n = getattr(vlm.processor, "num_image_tokens", None) or vlm.model.config.image_seq_length
        self.image_tokens = IMAGE_TOKEN * int(n)

    def pixel_values(self, path: str):
        if path not in self.pixels:
            image = load_image(path, where=path)
            self.pixels[path] = self.vlm.processor.image_processor(images=[image], return_tensors="pt")["pixel_values"]
        return self.pixels[path]

    def encode(self, row: dict[str, Any]) -> dict[str, Any]:
        import torch

        tok = self.vlm.tokenizer
        prompt = self.vlm.prompt(row["question"]).replace(IMAGE_TOKEN, self.image_tokens)
        p_ids = tok(prompt, add_special_tokens=False)["input_ids"]
        a_ids = tok(" " + row["answer"] + (tok.eos_token or ""), add_special_tokens=False)["input_ids"]
        ids = torch.tensor(p_ids + a_ids)
        labels = ids.clone()
        labels[:len(p_ids)] = -100
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": labels,
                "pixel_values": self.pixel_values(row["image"])}


def split_by_image(rows: list[dict[str, Any]], val_images: int, seed: int):
    images = sorted({r["image"] for r in rows})
    random.Random(seed).shuffle(images)
    val = set(images[:min(val_images, len(images) // 10)])
    return [r for r in rows if r["image"] not in val], [r for r in rows if r["image"] in val]


def accuracy_by_kind(vlm, rows: list[dict[str, Any]], batch_size: int = 32) -> dict[str, tuple[float, int]]:
    """Greedy answers on rows; (accuracy, count) per kind."""
    from toolkit.dsg.score import same_answer

    hits: dict[str, list[int]] = defaultdict(list)
    for i in range(0, len(rows), batch_size):
        chunk = rows[i:i + batch_size]
        images = [load_image(r["image"]) for r in chunk]
        texts = vlm.generate(images, [r["question"] for r in chunk], max_new_tokens=6)
        for r, t in zip(chunk, texts, strict=True):
            hits[r["kind"]].append(int(same_answer(clean_answer(t), r["answer"])))
    return {k: (sum(v) / len(v), len(v)) for k, v in sorted(hits.items())}


def majority_rates(train_rows: list[dict[str, Any]], val_rows: list[dict[str, Any]]) -> dict[str, float]:
    """Per kind: the validation accuracy of always giving the kind's most common training answer."""
    common = {k: Counter(r["answer"] for r in train_rows if r["kind"] == k).most_common(1)[0][0]
              for k in {r["kind"] for r in train_rows}}
    by: dict[str, list[int]] = defaultdict(list)
    for r in val_rows:
        by[r["kind"]].append(int(r["answer"] == common.get(r["kind"])))
    return {k: sum(v) / len(v) for k, v in by.items()}


def cap_per_image(prims: list[dict[str, Any]], per_image: int | None, seed: int) -> list[dict[str, Any]]:
    """At most `per_image` primitive questions of each image (a seeded sample; all of them with None)."""
    if per_image is None:
        return prims
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in prims:
        by[p["image"]].append(p)
    out = []
    for image in sorted(by):
        group = by[image]
        out.extend(group if len(group) <= per_image else random.Random(f"{seed}/{image}").sample(group, per_image))
    return out


def grouped_plan(rows: list[dict[str, Any]], images_per_batch: int, per_image: int | None, seed: int):
    """A batch plan (epoch -> batches of row indices) of `images_per_batch` images per step, each with its
    abstract questions and then up to `per_image` questions in all, drawn afresh every epoch round-robin over
    node types (a maze's start and goal are asked as often as its 24 walls). Each image is then encoded once
    per step for all its questions."""
    by_image: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_image[r["image"]].append(i)
    images = sorted(by_image)

    def pick(indices: list[int], rng: random.Random) -> list[int]:
        chosen = [i for i in indices if rows[i].get("abstract")]
        by_kind: dict[str, list[int]] = defaultdict(list)
        for i in indices:
            if not rows[i].get("abstract"):
                by_kind[rows[i]["kind"]].append(i)
        pools = [rng.sample(v, len(v)) for _, v in sorted(by_kind.items())]
        rng.shuffle(pools)
        limit = per_image if per_image is not None else len(indices)
        while len(chosen) < limit and any(pools):
            for pool in pools:
                if pool and len(chosen) < limit:
                    chosen.append(pool.pop())
        return chosen

    def plan(epoch: int) -> list[list[int]]:
        rng = random.Random(f"{seed}/{epoch}")
        order = rng.sample(images, len(images))
        return [[i for image in order[g:g + images_per_batch] for i in pick(by_image[image], rng)]
                for g in range(0, len(order), images_per_batch)]

    return plan


def train_model(prims: list[dict[str, Any]], items: list[dict[str, Any]] | None, model: str, out: str, *,
                minutes: float, epochs: float = 3.0, lr: float = 2e-3, batch_size: int = 16, seed: int = 0,
                val_images: int = 60, eval_every: int | None = None, abstract_repeat: int = 1,
                per_image: int | None = None, images_per_batch: int | None = None, resume: bool = False,
                writer=None) -> dict[str, Any]:
    """With `images_per_batch`, steps group questions by image (`grouped_plan`; `per_image` is then drawn
    afresh each epoch and `batch_size` only sizes evaluation); else shuffled batches of `batch_size` over at
    most `per_image` fixed questions per image."""
    rows = examples_from(prims if images_per_batch else cap_per_image(prims, per_image, seed), None)
    abstract = examples_from([], items) * abstract_repeat
    train_rows, val_rows = split_by_image(rows + abstract, val_images, seed)
    if not train_rows:
        raise InputError(f"{out}: no training examples")
    vlm = load_vlm(model, device="cpu", trainable=True)
    vlm.tokenizer.padding_side = "right"
    enc = Encoder(vlm)
    console.info(f"encoding {len(train_rows)} train / {len(val_rows)} validation questions "
                 f"over {len({r['image'] for r in train_rows})} / {len({r['image'] for r in val_rows})} images")
    train_items = [enc.encode(r) for r in train_rows]
    val_items = [enc.encode(r) for r in val_rows]
    majority = majority_rates(train_rows, val_rows)
    probe = _probe_rows(val_rows, seed)

    def on_eval(m, step):
        from toolkit.core.vlm import VLM

        view = VLM(model=m, processor=vlm.processor, device=vlm.device, word_level=True)
        acc = accuracy_by_kind(view, probe)
        stuck = [k for k, (a, _) in acc.items() if a <= majority.get(k, 0.0) + 0.02]
        if stuck:
            console.warn(f"step {step}: at the majority-answer rate on {', '.join(stuck)} "
                         "(the model answers from the question's prior there, not the image)")
        return {"val_accuracy": {k: round(a, 4) for k, (a, _) in acc.items()},
                "majority_rate": {k: round(majority.get(k, 0.0), 4) for k in acc}, "at_majority": stuck}

    cfg = SFTConfig(model=model, out=out, full=True, epochs=epochs, lr=lr, batch_size=batch_size, seed=seed,
                    max_minutes=minutes, warmup=30, eval_every=eval_every, log_type="dsg.train_log")
    plan = grouped_plan(train_rows, images_per_batch, per_image, seed) if images_per_batch else None
    summary = sft(cfg, vlm, train_items, val_items, resume=resume, on_epoch=on_eval, writer=writer, batch_plan=plan)
    summary["majority_rate"] = majority
    return summary


def _probe_rows(val_rows: list[dict[str, Any]], seed: int, per_kind: int = 20) -> list[dict[str, Any]]:
    """A fixed validation subset: up to `per_kind` questions of each kind (evaluation stays cheap)."""
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in val_rows:
        by[r["kind"]].append(r)
    rng = random.Random(seed)
    out = []
    for k in sorted(by):
        out.extend(rng.sample(by[k], min(per_kind, len(by[k]))))
    return out
