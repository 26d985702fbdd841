"""Answer-only supervised fine-tuning of a local VLM (full or LoRA), with exact resume.

The loss covers the answer tokens only. A checkpoint (trainable weights, optimizer, step, extra
state) is written every `save_every` steps and at the end of each epoch, so a resumed run continues
an interrupted one exactly. The building blocks (encoding, collation, loss, checkpoints, schedule)
serve systems with their own loops; `sft` is a plain loop with an evaluation hook (at each epoch's
end, or every `eval_every` steps).
"""

from __future__ import annotations

import json
import math
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.core import console
from toolkit.core.errors import InputError, RuntimeFailure
from toolkit.core.models import load_torch_state
from toolkit.core.records import RecordWriter, make_record
from toolkit.core.vlm import VLM, Turn

CKPT = "checkpoint"
AUX_PREFIX = "aux_"


def encode_example(vlm: VLM, image, prompt: str, answer: str | None) -> dict[str, Any]:
    """Processor tensors for one (image, prompt, answer) with labels masking everything but the answer."""
    tok = vlm.tokenizer
    text = f"{prompt} {answer}{tok.eos_token or ''}" if answer is not None else prompt
    full = vlm.processor(images=[image], text=[text], return_tensors="pt")
    n_prompt = vlm.processor(images=[image], text=[prompt], return_tensors="pt")["input_ids"].shape[1]
    item = {k: v[0] if k in ("input_ids", "attention_mask") else v for k, v in full.items()}
    labels = item["input_ids"].clone()
    labels[:n_prompt] = -100
    item["labels"] = labels
    return item


def encode_turns(vlm: VLM, image, turns: list[Turn], answer: str) -> dict[str, Any]:
    """A conversation whose last question is answered by `answer` (earlier answers are context, not loss)."""
    return encode_example(vlm, vlm.prepare(image), vlm.conversation_prompt(turns), answer)


def tail_mean(values: list[float], n: int) -> float:
    """Mean of the last n values (0.0 for none)."""
    tail = values[-n:]
    return sum(tail) / max(1, len(tail))


def collate(items: list[dict[str, Any]], pad_id: int) -> dict[str, Any]:
    """Right-pad token tensors; concatenate image tensors along the first axis. Items that share one
    `pixel_values` tensor (several questions about one image) keep one copy of it, and `image_index`
    names each row's image: the vision tower then encodes every image once (`forward`)."""
    import torch

    width = max(int(it["input_ids"].shape[0]) for it in items)
    out: dict[str, Any] = {}
    for key, fill in (("input_ids", pad_id), ("attention_mask", 0), ("labels", -100)):
        rows = []
        for it in items:
            t = it[key]
            rows.append(torch.cat([t, torch.full((width - t.shape[0],), fill, dtype=t.dtype)]))
        out[key] = torch.stack(rows)
    shared = _shared_images(items)
    if shared is not None:
        out["image_index"], out["pixel_values"] = shared
    for key in items[0]:
        if key not in out:
            out[key] = torch.cat([it[key] for it in items], dim=0)
    return out


def _shared_images(items: list[dict[str, Any]]):
    """(row -> image index, unique pixel tensors) when some items share one pixel tensor, else None."""
    import torch

    if "pixel_values" not in items[0]:
        return None
    slots: dict[int, int] = {}
    unique = []
    for it in items:
        key = id(it["pixel_values"])
        if key not in slots:
            slots[key] = len(unique)
            unique.append(it["pixel_values"])
    if len(unique) == len(items):
        return None
    return torch.tensor([slots[id(it["pixel_values"])] for it in items]), torch.cat(unique, dim=0)


def forward(model, batch: dict[str, Any]):
    """model(**batch); with `image_index` (from `collate`) each distinct image goes through the vision
    tower once and its features serve every row that asks about it. Training-only targets (keys with the
    `aux_` prefix, see `toolkit.core.patch_aux`) stay out of the model call."""
    batch = {k: v for k, v in batch.items() if not k.startswith(AUX_PREFIX)}
    if "image_index" not in batch:
        return model(**batch)
    rest = {k: v for k, v in batch.items() if k not in ("image_index", "pixel_values")}
    encoded = model.get_image_features(pixel_values=batch["pixel_values"], return_dict=True)
    features = encoded.pooler_output
    encoded.pooler_output = [features[int(i)] for i in batch["image_index"]]
    return model(**rest, mm_encoder_outputs={"image": encoded})


def prepare_model(model, *, full: bool, lora_r: int = 16, lora_alpha: int = 32, lora_dropout: float = 0.0,
                  lora_targets: list[str] | None = None, load_in_4bit: bool = False):
    """All weights trainable (`full`), else a peft LoRA wrapper over `lora_targets`."""
    if full:
        for p in model.parameters():
            p.requires_grad_(True)
        return model
    from peft import LoraConfig, get_peft_model

    if load_in_4bit:
        from peft import prepare_model_for_kbit_training

        model = prepare_model_for_kbit_training(model)
    targets = list(lora_targets or ["q_proj", "k_proj", "v_proj", "o_proj"])
    lora = LoraConfig(r=lora_r, lora_alpha=lora_alpha, lora_dropout=lora_dropout, target_modules=targets, bias="none")
    try:
        return get_peft_model(model, lora)
    except ValueError as exc:
        raise InputError(f"--lora-targets {','.join(targets)}: {str(exc).splitlines()[0]}") from None


def answer_loss(model, batch: dict[str, Any], first_token_weight: float = 1.0):
    """Token cross-entropy over the answer; the first answer token weighs `first_token_weight` times the
    others (a one-word verdict is then not drowned by a long explanation)."""
    if first_token_weight == 1.0:
        return forward(model, batch).loss
    logits = forward(model, {k: v for k, v in batch.items() if k != "labels"}).logits
    return answer_loss_of(logits, batch["labels"], first_token_weight)


def answer_loss_of(logits, labels, first_token_weight: float = 1.0):
    """`answer_loss` on logits already computed (a caller that also reads them)."""
    import torch.nn.functional as F

    logits = logits[:, :-1].float()
    target = labels[:, 1:]
    mask = target != -100
    ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.clamp(min=0).reshape(-1),
                         reduction="none").view_as(target)
    weights = mask.float()
    first = mask.int().argmax(dim=1)
    rows = mask.any(dim=1).nonzero().squeeze(1)
    weights[rows, first[rows]] = first_token_weight
    return (ce * weights).sum() / weights.sum().clamp(min=1.0)


def trainable_state(model) -> dict[str, Any]:
    return {n: p.detach().cpu().clone() for n, p in model.named_parameters() if p.requires_grad}


def epoch_batches(n: int, batch_size: int, seed: int, epoch: int) -> list[list[int]]:
    order = list(range(n))
    random.Random(seed * 1000003 + epoch).shuffle(order)
    return [order[i:i + batch_size] for i in range(0, n, batch_size)]


def evaluate_loss(model, items: list[dict[str, Any]], pad_id: int, batch_size: int, device) -> float | None:
    import torch

    if not items:
        return None
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(items), batch_size):
            chunk = items[i:i + batch_size]
            batch = {k: v.to(device) for k, v in collate(chunk, pad_id).items()}
            loss = forward(model, batch).loss
            n = int((batch["labels"][:, 1:] != -100).sum())
            total += float(loss) * n
            count += n
    model.train(was_training)
    return total / max(count, 1)


def warmup_cosine(lr: float, warmup: int, scheduled: int) -> Callable[[int], float]:
    """Linear warm-up, then cosine decay to a tenth of `lr` over `scheduled` steps."""
    def lr_at(step: int) -> float:
        if step < warmup:
            return lr * (step + 1) / warmup
        frac = (step - warmup) / max(1, scheduled - warmup)
        return lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, frac))))
    return lr_at


def save_checkpoint(ckpt: Path, model, optimizer, step: int, history: list[float], config: dict[str, Any],
                    **extra: Any) -> None:
    """Atomically write trainable weights, optimizer, step, loss history, RNG and `extra` state."""
    import torch

    ckpt.mkdir(parents=True, exist_ok=True)
    tmp = ckpt / "state.pt.tmp"
    torch.save({"weights": trainable_state(model), "optimizer": optimizer.state_dict(), "step": step,
                "history": history, "config": config, "torch_rng": torch.get_rng_state(), **extra}, tmp)
    tmp.replace(ckpt / "state.pt")


def load_checkpoint(ckpt: Path, model, optimizer, config: dict[str, Any]) -> dict[str, Any]:
    """Restore weights, optimizer and RNG from `ckpt`; the state dict (step, history, extras) is returned."""
    import torch

    state = load_torch_state(ckpt / "state.pt", map_location="cpu")
    if state["config"] != config:
        raise InputError(f"{ckpt}: --resume with different training options than the interrupted run")
    missing = model.load_state_dict(state["weights"], strict=False)
    if missing.unexpected_keys:
        raise RuntimeFailure(f"{ckpt}: checkpoint does not match the model ({missing.unexpected_keys[0]})")
    optimizer.load_state_dict(state["optimizer"])
    torch.set_rng_state(state["torch_rng"])
    return state


def save_final(model, vlm: VLM, full: bool, base: str | Path, out: Path) -> None:
    """The trained weights (a full model with its processor and tiny spec, or a LoRA adapter)."""
    model.save_pretrained(out)
    if full:
        vlm.processor.save_pretrained(out)
        spec = Path(base) / "tiny_spec.json"
        if spec.is_file():
            shutil.copy(spec, out / "tiny_spec.json")


@dataclass
class SFTConfig:
    model: str
    out: str
    full: bool = True
    lora_r: int = 16
    lora_alpha: int = 32
    lora_targets: list[str] = field(default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj"])
    epochs: float = 1.0
    lr: float = 1e-3
    batch_size: int = 16
    seed: int = 0
    save_every: int = 200
    max_steps: int | None = None
    max_minutes: float | None = None  # wall-clock cap: the schedule is fitted to it after the first steps
    chunk_minutes: float | None = None  # stop (checkpointed) after this long, schedule kept: resume continues it
    eval_every: int | None = None  # also run the evaluation hook every N steps (besides each epoch's end)
    warmup: int = 20
    aux_weight: float = 0.0  # weight of the auxiliary loss (`sft(aux=...)`) added to the answer loss
    aux_attention_weight: float = 0.0  # a weight inside the auxiliary loss (recorded so resume checks it)
    aux_readout_weight: float = 0.0  # another such weight
    device: str = "cpu"
    log_type: str = "vlm.train_log"


def _comparable(cfg: SFTConfig) -> dict[str, Any]:
    from dataclasses import asdict

    d = asdict(cfg)
    for key in ("save_every", "device", "max_steps", "max_minutes", "chunk_minutes", "eval_every"):
        d.pop(key, None)
    for key in ("aux_weight", "aux_attention_weight", "aux_readout_weight"):
        if not d.get(key):
            d.pop(key, None)  # runs without an auxiliary loss compare as before it existed
    return d


def sft(cfg: SFTConfig, vlm: VLM, train_items: list[dict[str, Any]], val_items: list[dict[str, Any]],
        resume: bool = False, on_epoch: Callable[[Any, int], dict[str, Any]] | None = None,
        writer: RecordWriter | None = None,
        batch_plan: Callable[[int], list[list[int]]] | None = None, aux: Any = None) -> dict[str, Any]:
    """Train on encoded items; `on_epoch(model, step)` adds fields (e.g. accuracies) to the evaluation's log
    record. `batch_plan(epoch)` (deterministic) lists an epoch's batches of item indices (default: seeded
    shuffles cut into `batch_size`). `aux` (training only, e.g. `patch_aux.PatchGrounding`) adds
    `cfg.aux_weight * aux.loss(batch)` after each forward; its parameters are trained, checkpointed and
    dropped at the end. Returns the summary; the final weights go to cfg.out."""
    import time

    import torch

    from toolkit.core.models import seed_everything

    out = Path(cfg.out)
    ckpt = out / CKPT
    if not resume and (ckpt / "state.pt").exists():
        raise InputError(f"{out}: already holds a training run; pass --resume to continue it or pick another --out")
    if not train_items:
        raise InputError(f"{out}: no training examples")
    seed_everything(cfg.seed)
    pad_id = vlm.tokenizer.pad_token_id if vlm.tokenizer.pad_token_id is not None else 0
    model = prepare_model(vlm.model, full=cfg.full, lora_r=cfg.lora_r, lora_alpha=cfg.lora_alpha,
                          lora_targets=cfg.lora_targets)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    if aux is not None:
        params += aux.parameters()
    optimizer = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=0.0)
    if batch_plan is None:
        def batch_plan(epoch: int) -> list[list[int]]:
            return epoch_batches(len(train_items), cfg.batch_size, cfg.seed, epoch)
    per_epoch = len(batch_plan(0))
    scheduled = int(math.ceil(per_epoch * cfg.epochs))
    total = scheduled if cfg.max_steps is None else min(scheduled, cfg.max_steps)
    lr_at = warmup_cosine(cfg.lr, cfg.warmup, scheduled)
    step, history = 0, []
    if resume and (ckpt / "state.pt").exists():
        state = load_checkpoint(ckpt, model, optimizer, _comparable(cfg))
        step, history = int(state["step"]), list(state["history"])
        scheduled, total = state.get("scheduled", scheduled), state.get("total", total)
        if aux is not None and state.get("aux") is not None:
            aux.load_state_dict(state["aux"])
        lr_at = warmup_cosine(cfg.lr, cfg.warmup, scheduled)
        console.info(f"resuming at step {step}/{total}")
    log = RecordWriter(out / "train_log.jsonl", append=resume)
    start, first_step = time.monotonic(), step
    capped = False
    plan, plan_epoch = [], -1
    with console.progress_bar(total, "training") as advance:
        advance(step)
        while step < total:
            epoch, index = divmod(step, per_epoch)
            if index == 0 or plan_epoch != epoch:
                plan, plan_epoch = batch_plan(epoch), epoch
            chosen = [train_items[i] for i in plan[index]]
            batch = {k: v.to(vlm.device) for k, v in collate(chosen, pad_id).items()}
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step)
            loss = answer_loss(model, batch)
            aux_loss = aux.loss(batch) if aux is not None else None
            total_loss = loss if aux_loss is None else loss + cfg.aux_weight * aux_loss
            total_loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            history.append(round(float(loss.detach()), 5))
            advance()
            if cfg.max_minutes is not None and step - first_step == 20:
                # fit the schedule to the wall-clock cap (an evaluation pass per epoch costs ~10 %)
                rate = 20 / max(1e-6, time.monotonic() - start)
                fits = step + int(0.85 * rate * (60 * cfg.max_minutes - (time.monotonic() - start)))
                if fits < total:
                    console.info(f"{rate:.2f} steps/s: {fits} of {total} steps fit in {cfg.max_minutes:g} min")
                    scheduled = total = max(step + 1, fits)
                    lr_at = warmup_cosine(cfg.lr, cfg.warmup, scheduled)
            capped = cfg.max_minutes is not None and time.monotonic() - start > 60 * cfg.max_minutes
            chunked = cfg.chunk_minutes is not None and time.monotonic() - start > 60 * cfg.chunk_minutes
            end_of_epoch = step % per_epoch == 0 or step == total or capped or chunked
            evaluate = end_of_epoch or bool(cfg.eval_every and step % cfg.eval_every == 0)
            record = {"step": step, "epoch": round(step / per_epoch, 3), "loss": history[-1], "lr": lr_at(step - 1)}
            if aux_loss is not None:
                record["aux_loss"] = round(float(aux_loss.detach()), 5)
                record.update(getattr(aux, "parts", {}))
            if evaluate:
                record["val_loss"] = evaluate_loss(model, val_items, pad_id, cfg.batch_size, vlm.device)
                if on_epoch is not None:
                    model.eval()
                    record.update(on_epoch(model, step))
                    model.train()
            if step % 10 == 0 or evaluate:
                log.write(make_record(cfg.log_type, **record))
                if writer is not None and evaluate:
                    writer.write(make_record(cfg.log_type, **record))
            if step % cfg.save_every == 0 or end_of_epoch:
                save_checkpoint(ckpt, model, optimizer, step, history, _comparable(cfg), scheduled=scheduled,
                                total=total, aux=aux.state_dict() if aux is not None else None)
            if capped:
                console.warn(f"stopped at step {step}/{total}: the {cfg.max_minutes:g}-minute cap was reached")
                break
            if chunked and step < total:
                console.info(f"chunk done at step {step}/{total} ({cfg.chunk_minutes:g} min); --resume continues it")
                break
    log.close()
    save_final(model, vlm, cfg.full, cfg.model, out)
    summary = {"out": str(out), "steps": step, "scheduled_steps": total, "epochs": round(step / per_epoch, 3),
               "capped": capped, "train_examples": len(train_items), "val_examples": len(val_items),
               "first_loss": history[0] if history else None,
               "last_loss": tail_mean(history, 10) if history else None,
               "minutes": round((time.monotonic() - start) / 60, 2)}
    (out / "train_summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary
