"""`reason aha`: build, fine-tune, run and evaluate a failure-reasoning VLM on FailGen samples."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import (
    LLMOpt,
    OutOpt,
    RecordOpt,
    ResumeOpt,
    SeedOpt,
    SkipBadOpt,
    make_llm,
    open_writer,
    report_bad,
    report_usage,
    seed_or_global,
)

app = typer.Typer(help="AHA: detect and explain robot sub-task failures with a vision-language model.\n\n"
                       "Example: reason failgen --task stack --out runs/fg | reason aha detect - > verdicts.jsonl",
                  no_args_is_help=True)

ModelOpt = Annotated[Path | None, typer.Option("--model", help="Local VLM directory (default: shipped tiny model).")]
DeviceOpt = Annotated[str, typer.Option("--device", help="auto, cpu or cuda[:N].")]


def _model_or_default(model: Path | None) -> Path:
    from toolkit.aha import DEFAULT_MODEL

    return model if model is not None else DEFAULT_MODEL


@app.command()
def tiny(
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the model, processor and tokenizer.")],
    data: Annotated[list[Path] | None, typer.Option("--data", help="aha.sample files whose words form the vocabulary.")]
    = None,
    image_size: Annotated[int, typer.Option(help="Square input size of the vision tower.")] = 192,
    vision: Annotated[str, typer.Option(help="Vision tower: swin (windowed, hierarchical) or clip (ViT).")] = "swin",
    patch_size: Annotated[int, typer.Option(help="ViT patch size (clip only).")] = 12,
    vision_hidden: Annotated[int, typer.Option(help="Vision tower width (swin: of the last stage).")] = 192,
    vision_layers: Annotated[int, typer.Option(help="Vision tower layers.")] = 5,
    vision_heads: Annotated[int, typer.Option(help="Vision attention heads (swin: in the last stage).")] = 8,
    text_hidden: Annotated[int, typer.Option(help="Language model width.")] = 96,
    text_layers: Annotated[int, typer.Option(help="Language model layers.")] = 2,
    swin_stages: Annotated[int, typer.Option(help="Swin stages; one image token per 4*2^(stages-1) px.")] = 4,
    swin_window: Annotated[int, typer.Option(help="Swin attention window, in tokens.")] = 6,
    seed: SeedOpt = None,
):
    """Build a small LLaVA-style VLM from configs with a word tokenizer from the FailGen vocabulary.

    The view size of the --data grids is recorded in OUT/geometry.json (detect and loop redraw other sizes to it).

    Example: reason aha tiny --data runs/fg/samples.jsonl --out models/aha-tiny
    """
    from toolkit.aha.geometry import common_rows, geometry_of_images, write_geometry
    from toolkit.aha.samples import load_samples
    from toolkit.aha.tiny import TinySpec, build_tiny_vlm
    from toolkit.core.extras import require
    from toolkit.core.records import dumps, make_record

    require("ml")
    texts: list[str] = []
    images = []
    all_samples = []
    for path in data or []:
        loaded = load_samples(path)
        all_samples += loaded
        texts += [t for s in loaded for t in (s.question, s.answer, s.subtask)]
        images += [s.image for s in loaded]
    spec = TinySpec(image_size=image_size, patch_size=patch_size, vision_hidden=vision_hidden,
                    vision_layers=vision_layers, vision_heads=vision_heads, text_hidden=text_hidden,
                    text_layers=text_layers, vision=vision, swin_stages=swin_stages, swin_window=swin_window)
    summary = build_tiny_vlm(out, texts, spec, seed=seed_or_global(seed))
    geometry = geometry_of_images(sorted(set(images))[:200], common_rows(all_samples))
    if geometry is not None:  # the grid layout it will be trained on; `aha train` keeps it
        write_geometry(out, geometry)
    summary["geometry"] = geometry.to_json() if geometry is not None else None
    print(dumps(make_record("aha.model", **summary)))


@app.command()
def train(
    data: Annotated[Path, typer.Option("--data", help="aha.sample JSONL or LLaVA JSON from `reason failgen`.")],
    model: Annotated[Path, typer.Option("--model", help="Local VLM directory to fine-tune.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the adapter/model and checkpoints.")],
    lora_r: Annotated[int, typer.Option(help="LoRA rank.")] = 16,
    lora_alpha: Annotated[int, typer.Option(help="LoRA alpha.")] = 32,
    lora_targets: Annotated[str, typer.Option(help="Comma-separated module names LoRA wraps.")]
    = "q_proj,k_proj,v_proj,o_proj",
    full: Annotated[bool, typer.Option("--full", help="Train every weight instead of a LoRA adapter.")] = False,
    load_in_4bit: Annotated[bool, typer.Option("--load-in-4bit", help="QLoRA: 4-bit base model (CUDA only).")]
    = False,
    epochs: Annotated[float, typer.Option(help="Passes over the training samples.")] = 1.0,
    lr: Annotated[float, typer.Option(help="Peak learning rate.")] = 2e-4,
    batch_size: Annotated[int, typer.Option(help="Samples per step.")] = 8,
    val_frac: Annotated[float, typer.Option(help="Fraction of episodes kept for validation.")] = 0.1,
    holdout_tasks: Annotated[str, typer.Option(help="Comma-separated tasks left out of training entirely.")] = "",
    save_every: Annotated[int, typer.Option(help="Checkpoint every N steps.")] = 200,
    verdict_weight: Annotated[float, typer.Option(help="Loss weight of the Yes/No token vs explanation tokens.")]
    = 1.0,
    vision_aux: Annotated[float, typer.Option(help="Weight of an auxiliary Yes/No probe on the image features "
                                              "(LLaVA-style models; helps a VLM trained from scratch use the image).")]
    = 0.0,
    vision_aux_subtask: Annotated[bool, typer.Option(help="The --vision-aux probe also reads the sub-task's words, "
                                                     "so grids whose label depends on the object named (wrong "
                                                     "object, --hindsight pairs) train the image path too.")]
    = False,
    hindsight: Annotated[bool, typer.Option(help="Add relabelled pairs of wrong-object and nominal grids to the "
                                            "training split, whose labels differ only by the object named.")]
    = False,
    max_steps: Annotated[int | None, typer.Option(help="Stop after N steps (the LR schedule still spans --epochs).")]
    = None,
    vision_warmup: Annotated[int, typer.Option(min=0, help="First N steps train only the vision tower, projector "
                                               "and probe (the language side waits), so the image path learns "
                                               "before the text-only answer takes hold.")] = 0,
    resize_aug: Annotated[float, typer.Option(min=0.0, max=1.0, help="Share of training grids redrawn at a random "
                                              "view size (48-256 px) and brought back to the trained geometry.")]
    = 0.0,
    vision_lr_scale: Annotated[float, typer.Option(help="Learning rate of the image path (vision tower, projector, "
                                                   "probe) as a multiple of --lr; below 1 keeps a tower trained "
                                                   "from scratch stable at a rate the language side takes.")]
    = 1.0,
    pair_margin: Annotated[float, typer.Option(min=0.0, help="Weight of a pairwise loss on the Yes-minus-No margin "
                                               "of each --hindsight twin and its source (same image, other "
                                               "object named, opposite label), batched together.")] = 0.0,
    object_aux: Annotated[float, typer.Option(min=0.0, help="Weight of a training-only head that says, from the "
                                              "image features, the colour of the object the robot handled "
                                              "(from FailGen's record of it).")] = 0.0,
    object_aux_words: Annotated[bool, typer.Option(help="The --object-aux head reads the colour as the best match "
                                                   "of the image tokens with the LM's colour-word embeddings.")]
    = False,
    bind_aux: Annotated[float, typer.Option(min=0.0, help="Weight of a training-only head that says, at the colour "
                                            "word of the object a --hindsight pair names, whether the robot "
                                            "handled that object (read from the language model's hidden state).")]
    = 0.0,
    bind_layer: Annotated[int, typer.Option(help="The --bind-aux head reads the hidden state after this many "
                                            "decoder layers.")] = 1,
    device: DeviceOpt = "auto",
    seed: SeedOpt = None,
    resume: ResumeOpt = False,
):
    """Fine-tune a local VLM on AHA samples (LoRA by default, --full, or QLoRA with --load-in-4bit).

    Example: reason aha train --data runs/fg/samples.jsonl --model models/aha-tiny --out runs/aha-lora --epochs 2
    """
    from toolkit.aha.train import TrainConfig
    from toolkit.aha.train import train as run_train
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.core.records import RecordWriter, make_record

    require("ml")
    if full and load_in_4bit:
        raise InputError("--full and --load-in-4bit exclude each other (QLoRA trains a LoRA adapter)")
    cfg = TrainConfig(data=str(data), model=str(model), out=str(out), full=full, lora_r=lora_r, lora_alpha=lora_alpha,
                      lora_targets=[t for t in lora_targets.split(",") if t], load_in_4bit=load_in_4bit,
                      epochs=epochs, lr=lr, batch_size=batch_size, seed=seed_or_global(seed), val_frac=val_frac,
                      holdout_tasks=[t for t in holdout_tasks.split(",") if t], save_every=save_every,
                      max_steps=max_steps, verdict_weight=verdict_weight, vision_aux=vision_aux,
                      vision_aux_subtask=vision_aux_subtask, hindsight=hindsight, vision_warmup=vision_warmup,
                      resize_aug=resize_aug, vision_lr_scale=vision_lr_scale,
                      pair_margin=pair_margin, object_aux=object_aux,
                      object_aux_words=object_aux_words, bind_aux=bind_aux, bind_layer=bind_layer,
                      device=device)
    writer = RecordWriter(None)
    summary = run_train(cfg, resume=resume, writer=writer)
    summary.pop("config")
    writer.write(make_record("aha.train", **summary))


@app.command()
def detect(
    samples: Annotated[str | None, typer.Argument(help="aha.sample JSONL or LLaVA JSON ('-' = stdin).")] = None,
    model: ModelOpt = None,
    adapter: Annotated[Path | None, typer.Option("--adapter", help="peft LoRA adapter directory.")] = None,
    image: Annotated[Path | None, typer.Option("--image", help="One grid image instead of samples.")] = None,
    subtask: Annotated[str | None, typer.Option("--subtask", help="Sub-task text for --image.")] = None,
    grid_rows: Annotated[str, typer.Option("--grid-rows", help="View rows of the --image grid, top to bottom "
                                           "(samples carry their own).")] = "front,wrist,overhead",
    llm: LLMOpt = None,
    record: RecordOpt = None,
    batch_size: Annotated[int, typer.Option(min=1, help="Grids per generate call.")] = 8,
    max_new_tokens: Annotated[int, typer.Option(help="Answer length limit.")] = 48,
    load_in_4bit: Annotated[bool, typer.Option("--load-in-4bit", help="4-bit model (CUDA only).")] = False,
    device: DeviceOpt = "auto",
    out: OutOpt = None,
    skip_bad: SkipBadOpt = False,
    resume: ResumeOpt = False,
    seed: SeedOpt = None,
):
    """Judge sub-task grids: one aha.verdict record (success, explanation, raw text) per sample.

    Verdicts are written as each batch is judged, while the samples are still arriving on a pipe. A sample
    whose image is unreadable (or not a grid the model can take) gets an aha.verdict with an 'error' field
    and the run goes on; it then ends with exit 2 naming the first one (--skip-bad: a warning only).

    Example: reason failgen --task stack --out runs/fg | reason aha detect - > verdicts.jsonl
    """
    import sys

    from toolkit.aha.samples import iter_samples, sample_from_image
    from toolkit.core import console
    from toolkit.core.errors import InputError
    from toolkit.core.records import BadLines, existing_keys

    read_bad = BadLines()
    if image is not None:
        if subtask is None:
            raise InputError("--image needs --subtask TEXT (the sub-task the grid shows)")
        from toolkit.failgen.grid import parse_rows

        items = iter([sample_from_image(image, subtask, parse_rows(grid_rows))])
    else:
        if samples is None:
            if sys.stdin.isatty():
                raise InputError("give a samples file, '-' for stdin, or --image GRID --subtask TEXT")
            samples = "-"
        items = iter_samples(samples, skip_bad=skip_bad, bad=read_bad, missing_images_ok=True)
    done = existing_keys(out, lambda r: r["sample_id"]) if resume else set()
    items = (s for s in items if s.sample_id not in done)
    from toolkit.core.models import seed_everything

    seed_everything(seed_or_global(seed))
    unjudged = BadLines()
    with open_writer(out, resume) as writer:
        if llm is not None:
            from toolkit.aha.detect import detect_llm

            backend = make_llm(llm, record)
            writer.write_all(detect_llm(backend, items, max_new_tokens=max(max_new_tokens, 128), bad=unjudged))
            report_usage(backend)
        else:
            from toolkit.aha.detect import detect_local
            from toolkit.aha.vlm import load_vlm

            path = _model_or_default(model)
            vlm = load_vlm(path, adapter, device=device, load_in_4bit=load_in_4bit)
            source = str(path) + (f"+{adapter}" if adapter else "")
            writer.write_all(detect_local(vlm, items, source, batch_size=batch_size, max_new_tokens=max_new_tokens,
                                          bad=unjudged))
    report_bad(read_bad)
    if unjudged.count:
        message = (f"{unjudged.count} sample(s) could not be judged (an aha.verdict with 'error' was written for "
                   f"each; first: {unjudged.examples[0]})")
        if not skip_bad:
            raise InputError(message)
        console.warn(message)


@app.command("eval")
def eval_(
    pred: Annotated[Path, typer.Option("--pred", help="aha.verdict JSONL ('-' = stdin).")],
    gold: Annotated[Path | None, typer.Option("--gold", help="aha.sample file with the reference answers "
                                              "(default: the verdicts' own 'reference').")] = None,
    llm: Annotated[str | None, typer.Option("--llm", help="LLM judge URI for fuzzy matching (optional).")] = None,
    record: RecordOpt = None,
    cosine: Annotated[bool, typer.Option("--cosine/--no-cosine", help="Sentence-embedding cosine (MiniLM).")]
    = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print one aha.eval record on stdout.")] = False,
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
):
    """Score verdicts: binary accuracy, ROUGE-L, cosine similarity and LLM fuzzy match, per task and mode.

    Binary scores come with a 95% interval that resamples whole scenes (`binary_ci95`).

    Example: reason aha eval --pred verdicts.jsonl --gold runs/fg/samples.jsonl --json
    """
    from toolkit.aha.evaluate import aggregate, join_rows, score_rows, show_tables, training_overlap
    from toolkit.core.records import BadLines, dumps, make_record

    bad = BadLines()
    rows = join_rows(pred, gold, skip_bad=skip_bad, bad=bad)
    report_bad(bad)
    embed = None
    if cosine:
        from toolkit.core.minilm import minilm_embedder

        embed = minilm_embedder()
    judge = make_llm(llm, record) if llm else None
    result = aggregate(rows, score_rows(rows, embed=embed, judge=judge), seed=seed_or_global(seed) or 0)
    result["train_scene_overlap"] = overlap = training_overlap(rows)
    show_tables(result)
    if overlap is not None:
        from toolkit.core import console

        note = console.warn if overlap["samples"] else console.info
        note(f"{overlap['samples']} of {overlap['of']} samples show {overlap['scenes']} scene(s) the model was "
             f"trained or validated on" + (f", e.g. {overlap['first'][0]}" if overlap["first"] else ""))
    if judge is not None:
        report_usage(judge)
    if as_json:
        print(dumps(make_record("aha.eval", pred=str(pred), gold=str(gold) if gold else None,
                                judge=llm, seed=seed_or_global(seed), **result)))


@app.command()
def loop(
    task: Annotated[str, typer.Option("--task", "-t", help="FailGen task to execute.")],
    episodes: Annotated[int, typer.Option("--episodes", "-n", min=1, help="Seeds to run (seed, seed+1, ...).")] = 10,
    inject_rate: Annotated[float, typer.Option("--inject-rate", min=0.0, max=1.0,
                                               help="Chance that a sub-task gets an injected failure.")] = 0.3,
    model: ModelOpt = None,
    adapter: Annotated[Path | None, typer.Option("--adapter", help="peft LoRA adapter directory.")] = None,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    max_retries: Annotated[int, typer.Option(help="Retries per sub-task after a 'No'.")] = 2,
    oracle: Annotated[bool, typer.Option("--oracle", help="Also run with a ground-truth detector.")] = False,
    image_size: Annotated[int, typer.Option(help="Camera image side in px (a local detector brings the grids to "
                                            "its trained geometry).")] = 128,
    allow_train_scenes: Annotated[bool, typer.Option("--allow-train-scenes", help="Run even when some scenes were "
                                                     "used to train or validate the detector.")] = False,
    device: DeviceOpt = "auto",
    out: OutOpt = None,
    seed: Annotated[int | None, typer.Option("--seed", help="First scene seed (default 2000: scenes the shipped "
                                             "detector never saw).")] = None,
):
    """Run a task with failures injected; compare task success with and without detector feedback.

    Example: reason aha loop --task stack --episodes 20 --inject-rate 0.3 | jq -c 'select(.type=="aha.loop_summary")'
    """
    from toolkit.aha.loop import FIRST_SEED, LoopConfig, llm_judge, run_loop, training_scene_overlap, vlm_judge
    from toolkit.aha.prompt import make_question
    from toolkit.core.extras import require

    require("sim")
    from toolkit.core import console

    cfg = LoopConfig(task=task, episodes=episodes, inject_rate=inject_rate,
                     seed=FIRST_SEED if seed is None else seed, max_retries=max_retries, image_size=image_size)
    backend = None
    overlap = None
    if llm is not None:
        backend = make_llm(llm, record)
        judge = llm_judge(backend)
    else:
        from toolkit.aha.vlm import load_vlm

        path = _model_or_default(model)
        found = training_scene_overlap(cfg, [path] + ([adapter] if adapter else []), allow=allow_train_scenes)
        overlap = len(found)
        if found:
            console.warn(f"{len(found)} of {cfg.episodes} scenes were used to train or validate the detector "
                         f"(--allow-train-scenes): its figures are partly on training images")
        judge = vlm_judge(load_vlm(path, adapter, device=device))

    with open_writer(out) as writer:
        for rec in run_loop(cfg, judge, make_question, oracle=oracle, train_overlap=overlap):
            writer.write(rec)
            if rec["type"] == "aha.loop_summary":
                extra = f", oracle {rec['success_with_oracle']:.2f}" if oracle else ""
                console.info(f"{task}: success without feedback {rec['success_without_feedback']:.2f}, "
                             f"with detector {rec['success_with_feedback']:.2f} "
                             f"({rec['gain_points']:+.1f} points{extra})")
    if backend is not None:
        report_usage(backend)
