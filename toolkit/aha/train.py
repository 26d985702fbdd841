"""Fine-tuning a local VLM on AHA samples: LoRA (peft), full, or QLoRA on CUDA.

The loss covers the answer tokens only. Whole episodes go to train or validation, and
`holdout_tasks` are left out of both. A checkpoint (trainable weights, optimizer, step)
is written every `save_every` steps and at the end of each epoch, so `resume` continues
an interrupted run exactly. Runs as is under `accelerate launch` (batches are sharded
over processes).
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from toolkit.aha.binding import BindingHead, binding_targets, word_position
from toolkit.aha.geometry import (
    Geometry,
    GridNormalizer,
    common_rows,
    geometry_of_images,
    read_geometry,
    write_geometry,
)
from toolkit.aha.hindsight import hindsight
from toolkit.aha.pairs import colour_labels, pair_margin_loss, paired_batches, twin_pairs, verdict_margins
from toolkit.aha.prompt import YES
from toolkit.aha.samples import Sample, load_samples, split_by_episode
from toolkit.aha.scenes import read_scenes, scene_of, write_scenes
from toolkit.aha.vision_aux import CHANCE, IGNORE, SubtaskWords, VisionProbe, stuck_at_chance
from toolkit.aha.vlm import VLM, fit_sample, load_image, load_vlm
from toolkit.core import console
from toolkit.core.errors import InputError
from toolkit.core.records import RecordWriter, make_record
from toolkit.core.vlm_train import (
    CKPT,
    answer_loss,
    answer_loss_of,
    collate,
    encode_example,
    epoch_batches,
    evaluate_loss,
    forward,
    load_checkpoint,
    prepare_model,
    save_checkpoint,
    save_final,
    tail_mean,
    warmup_cosine,
)
from toolkit.failgen.tasks import PALETTE


@dataclass
class TrainConfig:
    data: str
    model: str
    out: str
    full: bool = False
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.0
    lora_targets: list[str] = field(default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj"])
    load_in_4bit: bool = False
    epochs: float = 1.0
    lr: float = 2e-4
    batch_size: int = 8
    seed: int = 0
    val_frac: float = 0.1
    holdout_tasks: list[str] = field(default_factory=list)
    save_every: int = 200
    max_steps: int | None = None
    warmup: int = 20
    verdict_weight: float = 1.0
    vision_aux: float = 0.0  # weight of the auxiliary Yes/No probe on the image features (vision_aux.py)
    hindsight: bool = False  # add relabelled wrong-object pairs to the training split (hindsight.py)
    vision_aux_subtask: bool = False  # the probe also reads the sub-task's words (vision_aux.SubtaskWords)
    vision_warmup: int = 0  # first N steps train the vision tower, projector and probe only (language side frozen)
    resize_aug: float = 0.0  # share of training grids redrawn at a random view size, then brought back
    vision_lr_scale: float = 1.0  # the image path (tower, projector, probe) learns at this multiple of --lr
    pair_margin: float = 0.0  # weight of the pairwise margin loss on hindsight twins batched together (pairs.py)
    object_aux: float = 0.0  # weight of the head that says the handled object's colour from the image (pairs.py)
    object_aux_words: bool = False  # that head matches the image tokens with the LM's colour-word embeddings
    bind_aux: float = 0.0  # weight of the head that says, at the named colour word, whether that object was handled
    bind_layer: int = 1  # the binding head reads the hidden state after this many decoder layers (binding.py)
    device: str = "auto"


VISION_SIDE = ("vision_tower", "multi_modal_projector")
AUG_SIZES = (48, 256)  # view sizes a resolution-augmented grid is redrawn at (then brought back)


def encode_sample(vlm: VLM, sample: Sample, with_answer: bool = True) -> dict[str, Any]:
    """Processor tensors for one sample with labels masking everything but the answer."""
    image, question = fit_sample(vlm, load_image(sample.image, where=sample.sample_id), sample)
    return encode_example(vlm, vlm.prepare(image), vlm.prompt(question), sample.answer if with_answer else None)


def _prepare_model(vlm: VLM, cfg: TrainConfig):
    return prepare_model(vlm.model, full=cfg.full, lora_r=cfg.lora_r, lora_alpha=cfg.lora_alpha,
                         lora_dropout=cfg.lora_dropout, lora_targets=cfg.lora_targets, load_in_4bit=cfg.load_in_4bit)


def augmented_pixels(vlm: VLM, sample: Sample, rng: random.Random):
    """Pixel values of the sample's grid redrawn at a random view size in AUG_SIZES and brought back to
    the model's geometry, so the model does not depend on one exact resampling."""
    from toolkit.failgen.grid import regrid

    image = load_image(sample.image, where=sample.sample_id)
    image = regrid(image, rng.randint(*AUG_SIZES)) or image
    # a redraw asked for: no notice
    image = vlm.prepare(vlm.normalize(image, sample.sample_id, report=False, rows=sample.rows))
    return vlm.processor.image_processor(images=[image], return_tensors="pt")["pixel_values"]


def is_vision_side(name: str) -> bool:
    return any(part in name for part in VISION_SIDE)


def train(cfg: TrainConfig, resume: bool = False, writer: RecordWriter | None = None) -> dict[str, Any]:
    """Run training; returns the summary (also written to OUT/train_summary.json)."""
    import torch
    from accelerate import Accelerator

    from toolkit.core.models import seed_everything

    out = Path(cfg.out)
    ckpt = out / CKPT
    if not resume and (ckpt / "state.pt").exists():
        raise InputError(f"{out}: already holds a training run; pass --resume to continue it or pick another --out")
    if cfg.vision_aux_subtask and cfg.vision_aux <= 0:  # before the (slow) encoding of the data
        raise InputError("--vision-aux-subtask needs --vision-aux > 0 (it conditions that probe on the sub-task)")
    if (cfg.pair_margin > 0 or cfg.bind_aux > 0) and not cfg.hindsight:
        raise InputError("--pair-margin and --bind-aux need --hindsight (the pairs are the relabelled twins)")
    if cfg.vision_lr_scale <= 0:
        raise InputError(f"--vision-lr-scale must be > 0 (got {cfg.vision_lr_scale})")
    seed_everything(cfg.seed)
    samples = load_samples(cfg.data)
    train_s, val_s, held = split_by_episode(samples, cfg.val_frac, cfg.seed, set(cfg.holdout_tasks))
    if not train_s:
        raise InputError(f"{cfg.data}: no training samples left after the split/hold-out")
    relabelled = hindsight(train_s) if cfg.hindsight else []
    train_s = train_s + relabelled
    relabel_note = f"; {len(relabelled)} of the train samples relabelled in hindsight" if cfg.hindsight else ""
    vlm = load_vlm(cfg.model, device="cpu" if cfg.device == "cpu" else cfg.device,
                   load_in_4bit=cfg.load_in_4bit, trainable=True, warn_geometry=False)
    geometry = training_geometry(cfg.model, train_s)
    vlm.normalize = GridNormalizer(geometry) if geometry is not None else None
    if cfg.resize_aug > 0 and geometry is None:
        raise InputError(f"{cfg.data}: --resize-aug needs FailGen grids (none of the training images is one)")
    pad_id = vlm.tokenizer.pad_token_id if vlm.tokenizer.pad_token_id is not None else 0
    vlm.tokenizer.padding_side = "right"
    console.info(f"encoding {len(train_s)} train / {len(val_s)} validation samples "
                 f"({len({s.episode_id for s in train_s})} / {len({s.episode_id for s in val_s})} episodes; "
                 f"held out {len(held)} samples of tasks {sorted(set(cfg.holdout_tasks)) or '-'}{relabel_note})")
    train_items = [encode_sample(vlm, s) for s in train_s]
    val_items = [encode_sample(vlm, s) for s in val_s]
    # the image alone decides a relabelled sample's label no more: a probe on the image alone skips those
    train_verdicts = [IGNORE if s.relabelled and not cfg.vision_aux_subtask else int(s.label == YES)
                      for s in train_s]
    model = _prepare_model(vlm, cfg)
    params = [p for p in model.parameters() if p.requires_grad]
    language = [p for n, p in model.named_parameters() if p.requires_grad and not is_vision_side(n)]
    if cfg.vision_warmup and (cfg.vision_aux <= 0 or len(language) == len(params)):
        raise InputError("--vision-warmup needs --vision-aux > 0 and trainable vision tower or projector weights "
                         "(the warm-up trains the image path with the probe's loss)")
    n_trainable = sum(p.numel() for p in params)
    words = SubtaskWords([s.subtask for s in train_s]) if cfg.vision_aux_subtask else None
    colours = colour_labels(train_s) if cfg.object_aux > 0 else []
    colour_ids = _colour_word_ids(vlm) if colours and cfg.object_aux_words else None
    probe = (VisionProbe(model, vlm.device, words, colours=len(PALETTE) if colours else 0, colour_ids=colour_ids)
             if cfg.vision_aux > 0 or colours else None)
    pairs = twin_pairs(train_s) if cfg.pair_margin > 0 or cfg.bind_aux > 0 else []
    partner = {i: j for a, b in pairs for i, j in ((a, b), (b, a))}
    yes_id, no_id = _verdict_ids(train_items, train_s) if pairs else (0, 0)
    if pairs:
        console.info(f"{len(pairs)} same-image pairs batched together (--pair-margin {cfg.pair_margin})")
    binder, bind_at = _binding(vlm, model, cfg, train_s, train_items, pairs)
    extra = binder.parameters() if binder else []
    optimizer = torch.optim.AdamW(_param_groups(language + extra, params, probe, cfg.vision_lr_scale), lr=cfg.lr,
                                  weight_decay=0.0)
    accelerator = Accelerator(cpu=vlm.device == "cpu")
    model, optimizer = accelerator.prepare(model, optimizer)
    per_epoch = math.ceil(len(train_items) / cfg.batch_size)
    scheduled = int(math.ceil(per_epoch * cfg.epochs))  # the LR schedule spans --epochs ...
    total = scheduled if cfg.max_steps is None else min(scheduled, cfg.max_steps)  # ... --max-steps only stops

    lr_at = warmup_cosine(cfg.lr, cfg.warmup, scheduled)

    step, history, probe_history, pair_history, colour_history, bind_history = 0, [], [], [], [], []
    if resume and (ckpt / "state.pt").exists():
        state = load_checkpoint(ckpt, accelerator.unwrap_model(model), optimizer, _comparable(cfg))
        if probe is not None:
            probe.load_state_dict(state["probe"])
        if binder is not None:
            binder.load_state_dict(state["binder"])
        step, history = int(state["step"]), list(state["history"])
        console.info(f"resuming at step {step}/{total}")
    log = RecordWriter(out / "train_log.jsonl", append=resume)
    model.train()
    rank, world = accelerator.process_index, accelerator.num_processes
    with console.progress_bar(total, "training") as advance:
        advance(step)
        while step < total:
            epoch, index = divmod(step, per_epoch)
            batches = (paired_batches(len(train_items), pairs, cfg.batch_size, cfg.seed, epoch) if pairs
                       else epoch_batches(len(train_items), cfg.batch_size, cfg.seed, epoch))
            idx = batches[index]
            shard = idx[rank::world] or idx
            chosen = [train_items[i] for i in shard]
            if cfg.resize_aug > 0:
                rngs = [random.Random(f"{cfg.seed}/{step}/{i}") for i in shard]
                chosen = [{**it, "pixel_values": augmented_pixels(vlm, train_s[i], r)}
                          if r.random() < cfg.resize_aug else it for it, i, r in zip(chosen, shard, rngs, strict=True)]
            batch = {k: v.to(accelerator.device) for k, v in collate(chosen, pad_id).items()}
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step) * group["lr_scale"]
            warming = step < cfg.vision_warmup
            if probe is not None:
                probe.isolate = warming
            if pairs:
                out_fw = forward(model, {**{k: v for k, v in batch.items() if k != "labels"},
                                         "output_hidden_states": binder is not None})
                logits = out_fw.logits
                loss = answer_loss_of(logits, batch["labels"], cfg.verdict_weight)
                pos = {i: r for r, i in enumerate(shard)}
                in_batch = [(r, pos[partner[i]]) for r, i in enumerate(shard)
                            if i in partner and pos.get(partner[i], -1) > r]
                margins = verdict_margins(logits, batch["labels"], yes_id, no_id)
                pair_loss = pair_margin_loss(margins, in_batch, [train_s[i].label == YES for i in shard])
                if in_batch:
                    pair_history.append(float(pair_loss.detach()))
                loss = loss + cfg.pair_margin * pair_loss
                if binder is not None:
                    rows = [r for r, i in enumerate(shard) if i in bind_at]
                    bind_loss = binder.loss(out_fw.hidden_states, rows, [bind_at[shard[r]][0] for r in rows],
                                            [bind_at[shard[r]][1] for r in rows])
                    if rows:
                        bind_history.append(float(bind_loss.detach()))
                    loss = loss + cfg.bind_aux * bind_loss
            else:
                loss = answer_loss(model, batch, cfg.verdict_weight)
            if probe is not None:
                verdicts = torch.tensor([train_verdicts[i] for i in shard], device=accelerator.device)
                probe_loss = probe.loss(verdicts, [train_s[i].subtask for i in shard])
                # a batch of relabelled samples only scores nothing; without --vision-aux (a probe kept for the
                # colour head) the Yes/No head is untrained and its loss no signal
                if cfg.vision_aux > 0 and bool((verdicts != IGNORE).any()):
                    probe_history.append(float(probe_loss.detach()))
                loss = loss + cfg.vision_aux * probe_loss
                if colours:
                    targets = torch.tensor([colours[i] for i in shard], device=accelerator.device)
                    colour_loss = probe.colour_loss(targets)
                    colour_history.append(float(colour_loss.detach()))
                    loss = loss + cfg.object_aux * colour_loss
            accelerator.backward(loss)
            if warming:  # the language side waits: the clip budget and the updates go to the image path
                for p in language:
                    p.grad = None
            accelerator.clip_grad_norm_(params, 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            history.append(round(float(loss.detach()), 5))
            advance()
            end_of_epoch = step % per_epoch == 0 or step == total
            record = {"step": step, "epoch": round(step / per_epoch, 3), "loss": history[-1], "lr": lr_at(step - 1)}
            if warming:
                record["stage"] = "vision-warmup"
            if probe_history:
                record["probe_loss"] = round(tail_mean(probe_history, 10), 5)
            if pair_history:
                record["pair_loss"] = round(tail_mean(pair_history, 10), 5)
            if colour_history:
                record["colour_loss"] = round(tail_mean(colour_history, 10), 5)
            if bind_history:
                record["bind_loss"] = round(tail_mean(bind_history, 10), 5)
            if end_of_epoch:
                record["val_loss"] = evaluate_loss(model, val_items, pad_id, cfg.batch_size, accelerator.device)
            if step % 10 == 0 or end_of_epoch:
                log.write(make_record("aha.train_log", **record))
                if writer is not None and end_of_epoch:
                    writer.write(make_record("aha.train_log", **record))
            if accelerator.is_main_process and (step % cfg.save_every == 0 or end_of_epoch):
                _save_checkpoint(ckpt, accelerator.unwrap_model(model), optimizer, step, history, cfg, probe, binder)
    log.close()
    probe_end = None
    if probe is not None:
        probe.close()
        probe_end = tail_mean(probe_history, per_epoch) if probe_history else None
        if probe_end is not None and stuck_at_chance(probe_end):
            console.warn(f"the vision probe ended at chance (loss {probe_end:.3f} over the last epoch, chance "
                         f"{CHANCE:.3f}): the model has likely learned to answer from the text alone; "
                         "retrain with another --lr / --vision-aux (see assets/aha/README.md)")
    val_loss = evaluate_loss(model, val_items, pad_id, cfg.batch_size, accelerator.device)
    summary = {"out": str(out), "mode": "full" if cfg.full else ("qlora" if cfg.load_in_4bit else "lora"),
               "steps": step, "epochs": round(step / per_epoch, 3), "train_samples": len(train_items),
               "val_samples": len(val_items), "relabelled_samples": len(relabelled),
               "vision_probe_loss": None if probe_end is None else round(probe_end, 5),
               "twin_pairs": len(pairs),
               "held_out_samples": len(held), "trainable_params": n_trainable,
               "first_loss": history[0] if history else None,
               "last_loss": tail_mean(history, 10) if history else None,
               "val_loss": val_loss, "val_episodes": sorted({s.episode_id for s in val_s}),
               "holdout_tasks": sorted(cfg.holdout_tasks), "config": asdict(cfg)}
    if accelerator.is_main_process:
        _save_final(accelerator.unwrap_model(model), vlm, cfg, out)
        if geometry is not None:
            write_geometry(out, geometry)
        train_scenes, val_scenes = ({x for x in (scene_of(s.task, s.seed, s.episode_id) for s in part) if x}
                                    for part in (train_s, val_s))
        # a fine-tuned model has seen its base model's scenes too
        write_scenes(out, train_scenes | (read_scenes(cfg.model) or set()), val_scenes)
        (out / "train_summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


def _param_groups(language: list, params: list, probe: VisionProbe | None, image_scale: float) -> list[dict]:
    """Optimizer groups: the language side at the scheduled rate, the image path (tower, projector and
    probe) at `image_scale` times it; a tower trained from scratch diverges at a rate the language side takes."""
    taken = {id(p) for p in language}
    image = [p for p in params if id(p) not in taken] + (probe.parameters() if probe else [])
    groups = [{"params": language, "lr_scale": 1.0}, {"params": image, "lr_scale": image_scale}]
    return [g for g in groups if g["params"]]


def _binding(vlm: VLM, model, cfg: TrainConfig, samples: list[Sample], items: list[dict[str, Any]],
             pairs: list[tuple[int, int]]) -> tuple[BindingHead | None, dict[int, tuple[int, int]]]:
    """The binding head (binding.py) and, per training sample it scores, (colour word's position, match)."""
    if cfg.bind_aux <= 0:
        return None, {}
    layers = model.config.text_config.num_hidden_layers
    if not 1 <= cfg.bind_layer <= layers:
        raise InputError(f"--bind-layer must be within 1-{layers} (the language model's decoder layers), "
                         f"got {cfg.bind_layer}")
    ids = dict(zip(PALETTE, (int(i) for i in _colour_word_ids(vlm, "--bind-aux")), strict=True))
    at = {}
    for i, (word, match) in binding_targets(samples, pairs).items():
        pos = word_position(items[i], ids[word])
        if pos >= 0:
            at[i] = (pos, match)
    if not at:
        raise InputError("--bind-aux: no twin pair names its objects by one colour word each; train without it")
    console.info(f"binding head on {len(at)} paired samples (hidden state after decoder layer {cfg.bind_layer})")
    return BindingHead(model.config.text_config.hidden_size, cfg.bind_layer, vlm.device), at


def _colour_word_ids(vlm: VLM, option: str = "--object-aux-words"):
    """The LM's token id of each PALETTE word (a one-token word, as in the tiny word tokenizer)."""
    import torch

    ids = []
    for colour in PALETTE:
        tokens = vlm.tokenizer(colour, add_special_tokens=False)["input_ids"]
        if len(tokens) != 1:
            raise InputError(f"{option}: the tokenizer splits the colour word '{colour}' into "
                             f"{len(tokens)} tokens; train without it")
        ids.append(tokens[0])
    return torch.tensor(ids)


def _verdict_ids(items: list[dict[str, Any]], samples: list[Sample]) -> tuple[int, int]:
    """Token ids of the first answer token of a "Yes" and of a "No" sample (the verdict words)."""
    first = {}
    for it, s in zip(items, samples, strict=True):
        answer = it["labels"][it["labels"] != -100]
        if len(answer):
            first.setdefault(s.label == YES, int(answer[0]))
        if len(first) == 2:
            return first[True], first[False]
    raise InputError("--pair-margin needs both Yes and No samples in the training split")


def training_geometry(model: str, samples: list[Sample]) -> Geometry | None:
    """The base model's recorded geometry, else that of the training grids (their most common view size)."""
    recorded = read_geometry(model)
    if recorded is not None:
        return recorded
    return geometry_of_images(sorted({s.image for s in samples if not s.relabelled})[:200], common_rows(samples))


def _comparable(cfg: TrainConfig) -> dict[str, Any]:
    """Options that must not change across --resume (--max-steps may: it only says where to stop)."""
    d = asdict(cfg)
    for key in ("save_every", "device", "max_steps"):
        d.pop(key, None)
    return d


def _save_checkpoint(ckpt: Path, model, optimizer, step: int, history: list[float], cfg: TrainConfig,
                     probe: VisionProbe | None = None, binder: BindingHead | None = None) -> None:
    save_checkpoint(ckpt, model, optimizer, step, history, _comparable(cfg),
                    probe=probe.state_dict() if probe else None, binder=binder.state_dict() if binder else None)


def _save_final(model, vlm: VLM, cfg: TrainConfig, out: Path) -> None:
    save_final(model, vlm, cfg.full, cfg.model, out)
