"""Training the CNN grounder on generated scenes, in resumable chunks.

Each step takes `images_per_batch` training images and every question about them: the primitive (schema
node) questions and, with `items`, each image's abstract question asked directly, so the same network is
also the end-to-end baseline on the same images, steps and labels. The loss averages the cross-entropy
within each question kind first (a maze's start counts as much as its 24 walls). Images are augmented
(shifts, thicker or blurred strokes, periodically broken strokes, fainter ink, noise) so that a line drawn in another
material or a mark in another fill still reads the same; no held-out style is drawn.

A chunk stops at `minutes` (or on Ctrl-C) after saving a checkpoint; `resume` continues from it. The
schedule is fixed by `epochs`, so chunks of any length give the same run. The exported model
(grounder.json + model.safetensors) is refreshed at every checkpoint.
"""

from __future__ import annotations

import json
import math
import random
import signal
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from toolkit.core import console
from toolkit.core.errors import InputError
from toolkit.core.models import load_tensors, load_torch_state
from toolkit.core.records import RecordWriter, make_record
from toolkit.core.vlm import load_image
from toolkit.dsg.cnn import CONFIG, SIDE, WEIGHTS, Vocab, build_network, ink_map, pack
from toolkit.dsg.train import examples_from

CHECKPOINT = "checkpoint.pt"
LOG = "train_log.jsonl"


def ink_cache(images: list[str], out: Path) -> np.ndarray:
    """uint8 ink maps of `images`, kept in out/inks.npy so that later chunks do not redraw them."""
    path, index = out / "inks.npy", out / "inks.json"
    if path.is_file() and index.is_file() and json.loads(index.read_text()) == images:
        return np.load(path)
    inks = np.stack([(ink_map(load_image(p, where=p)) * 255).round().astype(np.uint8) for p in images])
    np.save(path, inks)
    index.write_text(json.dumps(images))
    return inks


def augment(ink, rng: np.random.Generator, outlines: bool = False):
    """A batch [B, S, S] in [0, 1], each image changed at random (see the module's docstring); with `outlines`,
    some images keep only the inner edge of their ink (a solid mark becomes its outline), so that a mark's class
    is learned from its shape rather than its fill."""
    import torch
    import torch.nn.functional as F

    out = []
    for x in ink:
        x = x[None, None]
        if outlines and rng.random() < 0.3:
            x = (x + F.max_pool2d(-x, 3, 1, 1)).clamp(0, 1)
        if rng.random() < 0.3:
            x = F.max_pool2d(x, 3, 1, 1)
        if rng.random() < 0.3:
            x = F.avg_pool2d(x, 3, 1, 1)
        if rng.random() < 0.15:  # broken strokes: periodic gaps along rows or columns
            period = int(rng.integers(3, 7))
            keep = torch.ones(SIDE)
            keep[int(rng.integers(period))::period] = float(rng.uniform(0.0, 0.5))
            x = x * (keep[None, None, :, None] if rng.random() < 0.5 else keep[None, None, None, :])
        x = (x * rng.uniform(0.5, 1.0)).clamp(0, 1) ** rng.uniform(0.7, 1.4)
        dy, dx = (int(v) for v in rng.integers(-4, 5, size=2))
        x = torch.roll(F.pad(x, (4, 4, 4, 4)), (dy, dx), (2, 3))[..., 4:-4, 4:-4]
        out.append(x[0, 0])
    batch = torch.stack(out)
    return (batch + torch.randn_like(batch) * 0.03).clamp(0, 1)


def _split(images: list[str], val_images: int, seed: int) -> tuple[list[str], list[str]]:
    order = sorted(images)
    random.Random(seed).shuffle(order)
    k = min(val_images, len(order) // 10)
    return sorted(order[k:]), sorted(order[:k])


def export(net, vocab: Vocab, out: Path, network: dict[str, int]) -> None:
    from safetensors.torch import save_file

    save_file({k: v.detach().contiguous() for k, v in net.state_dict().items()}, str(out / WEIGHTS))
    (out / CONFIG).write_text(json.dumps({"type": "dsg.grounder", "schema": 1, "side": SIDE, "network": network,
                                          "tokens": vocab.tokens, "answers": vocab.answers}) + "\n")


def train_grounder(prims: list[dict[str, Any]], items: list[dict[str, Any]] | None, out: str | Path, *,
                   epochs: float = 12.0, lr: float = 2e-3, images_per_batch: int = 16, minutes: float = 10.0,
                   seed: int = 0, val_images: int = 150, resume: bool = False,
                   steps: int | None = None, init: str | Path | None = None,
                   outlines: bool = False) -> dict[str, Any]:
    """Train (or with `resume` continue) until the schedule ends, `minutes` pass or this chunk has taken `steps`
    steps. Every step's augmentation is seeded by (seed, step), so chunks of any length give the same weights.
    `init`: start from an exported grounder's weights (the same questions' tokens and answers) with a new
    schedule: a second stage."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rows = examples_from(prims, items)
    if not rows:
        raise InputError(f"{out}: no training questions")
    vocab = Vocab.from_rows(rows)
    images = sorted({r["image"] for r in rows})
    console.info(f"ink maps of {len(images)} images")
    inks = ink_cache(images, out)
    image_id = {p: i for i, p in enumerate(images)}
    train_imgs, val_imgs = _split(images, val_images, seed)
    by_image: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_image[r["image"]].append(i)
    encoded = [vocab.encode(r["question"]) for r in rows]
    target = [vocab.answer_id[str(r["answer"]).lower()] for r in rows]
    per_epoch = math.ceil(len(train_imgs) / images_per_batch)
    total = max(1, int(epochs * per_epoch))
    network = {"width": 64, "hidden": 512}
    net = build_network(len(vocab.tokens), len(vocab.answers), **network)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    step, ckpt = 0, out / CHECKPOINT
    if init is not None and not (resume and ckpt.is_file()):
        if not Path(init).is_dir():
            raise InputError(f"{init}: no such grounder directory (--init)")
        try:
            start = json.loads((Path(init) / CONFIG).read_text())
            same = start["tokens"] == vocab.tokens and start["answers"] == vocab.answers
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(f"{Path(init) / CONFIG}: not a dsg grounder config ({type(exc).__name__})") from None
        if not same:
            raise InputError(f"{init}: --init grounder was trained on other questions (tokens or answers differ)")
        net.load_state_dict(load_tensors(Path(init) / WEIGHTS)[0])
    if resume and ckpt.is_file():
        state = load_torch_state(ckpt)
        if state["tokens"] != vocab.tokens or state["total"] != total:
            raise InputError(f"{ckpt}: the checkpoint was trained on other data or another schedule; drop --resume")
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        step = state["step"]
        console.info(f"resumed at step {step} of {total}")
    elif not resume and (out / LOG).is_file():
        (out / LOG).unlink()
    log = RecordWriter(out / LOG, append=True)
    kinds = sorted({r["kind"] for r in rows})
    majority = {k: Counter(r["answer"] for r in rows if r["kind"] == k and r["image"] in set(train_imgs))
                .most_common(1) for k in kinds}

    def batch(imgs: list[str]):
        idx = [i for p in imgs for i in by_image[p]]
        local = {p: j for j, p in enumerate(imgs)}
        tokens, offsets = pack([encoded[i][0] for i in idx])
        mask = torch.zeros(len(idx), len(vocab.answers))
        for n, i in enumerate(idx):
            if encoded[i][1]:
                mask[n] = float("-inf")
                mask[n, encoded[i][1]] = 0.0
        ink = torch.from_numpy(inks[[image_id[p] for p in imgs]].astype(np.float32) / 255)
        where = torch.tensor([local[rows[i]["image"]] for i in idx])
        return idx, ink, where, tokens, offsets, mask

    def evaluate() -> dict[str, Any]:
        net.eval()
        hits: dict[str, list[int]] = defaultdict(list)
        with torch.no_grad():
            for g in range(0, len(val_imgs), 32):
                idx, ink, where, tokens, offsets, mask = batch(val_imgs[g:g + 32])
                pred = (net(net.features(ink), where, tokens, offsets) + mask).argmax(1)
                for n, i in enumerate(idx):
                    hits[rows[i]["kind"]].append(int(pred[n] == target[i]))
        net.train()
        acc = {k: round(sum(v) / len(v), 4) for k, v in sorted(hits.items())}
        rate = {}
        for k in acc:
            common = majority[k][0][0] if majority[k] else None
            val = [r for p in val_imgs for r in (rows[i] for i in by_image[p]) if r["kind"] == k]
            rate[k] = round(sum(r["answer"] == common for r in val) / max(1, len(val)), 4)
        prims_hits = [h for k, v in hits.items() if "." not in k for h in v]
        return {"val_accuracy": acc, "majority_rate": rate,
                "val_primitive_accuracy": round(sum(prims_hits) / max(1, len(prims_hits)), 4)}

    stop = {"now": False}
    previous = signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    started, losses = time.monotonic(), []

    def save() -> None:
        torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "step": step, "total": total,
                    "tokens": vocab.tokens}, ckpt)
        export(net, vocab, out, network)

    net.train()
    first = step
    try:
        while step < total and not stop["now"] and time.monotonic() - started < minutes * 60 \
                and (steps is None or step - first < steps):
            rng = np.random.default_rng([seed, step])
            torch.manual_seed(seed * 1_000_003 + step)
            epoch, k = divmod(step, per_epoch)
            order = random.Random(f"{seed}/{epoch}").sample(train_imgs, len(train_imgs))
            idx, ink, where, tokens, offsets, mask = batch(order[k * images_per_batch:(k + 1) * images_per_batch])
            for group in opt.param_groups:
                warm = min(1.0, (step + 1) / 100)
                group["lr"] = lr * warm * 0.5 * (1 + math.cos(math.pi * step / total))
            logits = net(net.features(augment(ink, rng, outlines)), where, tokens, offsets) + mask
            each = F.cross_entropy(logits, torch.tensor([target[i] for i in idx]), reduction="none")
            by_kind: dict[str, list[int]] = defaultdict(list)
            for n, i in enumerate(idx):
                by_kind[rows[i]["kind"]].append(n)
            loss = torch.stack([each[v].mean() for v in by_kind.values()]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            losses.append(loss.item())
            if step % 20 == 0:
                log.write(make_record("dsg.grounder_log", step=step, epoch=round(step / per_epoch, 3),
                                      loss=round(sum(losses) / len(losses), 4)))
                losses = []
            if step % 100 == 0:
                save()
            if step % per_epoch == 0 or step == total:
                rec = make_record("dsg.grounder_eval", step=step, epoch=round(step / per_epoch, 3), **evaluate())
                log.write(rec)
                console.info(f"step {step}/{total}: validation primitives {rec['val_primitive_accuracy']:.3f}")
        save()
    finally:
        signal.signal(signal.SIGINT, previous)
        log.close()
    return {"out": str(out), "step": step, "total_steps": total, "done": step >= total,
            "train_images": len(train_imgs), "val_images": len(val_imgs), "questions": len(rows),
            "chunk_minutes": round((time.monotonic() - started) / 60, 2)}
