"""`reason cogcom`: Chain-of-Manipulations scenes, executable manipulation chains, solving, CoM synthesis, scoring."""

from __future__ import annotations

import json
import os
import random
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
from toolkit.core import console
from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, existing_keys, make_record, read_records

app = typer.Typer(help="CogCoM: ground / crop-and-zoom / OCR / count / calculate chains for any VLM, and CoM "
                       "data synthesis.\n\nExample: reason cogcom scenes --n 20 --fonts heldout --out d && "
                       "reason cogcom solve --items d/items.jsonl --policy fixed | "
                       "reason cogcom eval --pred - --gold d/items.jsonl",
                  no_args_is_help=True)

GrounderOpt = Annotated[str, typer.Option("--grounder", help="cv (OpenCV color/shape), vlm (ask --llm), py:MOD:FN.")]
OcrOpt = Annotated[str, typer.Option("--ocr", help="tesseract or py:MOD:FN.")]
BudgetOpt = Annotated[int, typer.Option("--budget", help="Long side (px) the perceivers and the VLM see.")]


def _vision():
    from toolkit.core.extras import require

    require("vision")


def _check_budget(budget: int) -> None:
    if budget < 32:
        raise InputError(f"--budget {budget}: must be at least 32 px")


def _perceivers(grounder: str, ocr: str, llm=None):
    from toolkit.cogcom.tools import make_grounder, make_reader

    return make_grounder(grounder, llm), make_reader(ocr)


@app.command()
def scenes(
    out: Annotated[Path, typer.Option("--out", help="Folder for images/ and items.jsonl.")],
    n: Annotated[int, typer.Option("--n", min=1, help="Number of scenes (one question each).")] = 300,
    fonts: Annotated[str, typer.Option("--fonts", help="train (DejaVu Sans/Mono) or heldout (DejaVu Serif, STIX).")]
    = "train",
    kinds: Annotated[str, typer.Option("--kinds", help="Comma list of read, count, compute (2:2:1 when all).")]
    = "read,count,compute",
    seed: SeedOpt = None,
):
    """Draw 1024x768 scenes with small signs, trays of tiny shapes and price tags, one question each.

    Example: reason cogcom scenes --n 300 --seed 10000 --fonts heldout --out heldout
    """
    from toolkit.cogcom.scenes import FONT_FILES, KINDS, generate

    if fonts not in FONT_FILES:
        raise InputError(f"--fonts {fonts}: expected train or heldout")
    wanted = [k.strip() for k in kinds.split(",") if k.strip()]
    if not wanted or any(k not in KINDS for k in wanted):
        raise InputError(f"--kinds {kinds}: expected a comma list of {', '.join(KINDS)}")
    items = generate(n, seed_or_global(seed), fonts, out, wanted)
    with open_writer(out / "items.jsonl") as writer:
        for item in items:
            writer.write(make_record("cogcom.item", **item))
    console.info(f"{len(items)} scenes in {out} (items.jsonl, images/)")


@app.command("exec")
def exec_chain(
    image: Annotated[Path, typer.Argument(help="The input image.")],
    chain: Annotated[str, typer.Argument(help='Steps "NAME(args)->var; ..." e.g. "GROUNDING(red sign)->b; '
                                              'CROP_AND_ZOOMIN(b, 2)->i; OCR(i)->t".')],
    images: Annotated[Path, typer.Option("--images", help="Folder for the images the chain makes.")]
    = Path("cogcom-images"),
    budget: BudgetOpt = 448, grounder: GrounderOpt = "cv", ocr: OcrOpt = "tesseract", out: OutOpt = None,
):
    """Run a manipulation chain on one image; one `cogcom.step` per step, images written to --images.

    Example: reason cogcom exec scene.png "GROUNDING(red sign)->b; CROP_AND_ZOOMIN(b, 2)->i; OCR(i)->t"
    """
    from toolkit.cogcom.chain import parse_chain
    from toolkit.cogcom.images import load_image
    from toolkit.cogcom.manip import Workspace
    from toolkit.cogcom.runtime import step_record

    _check_budget(budget)
    calls = parse_chain(chain)
    picture = load_image(image)
    ground_fn, read_fn = _perceivers(grounder, ocr)
    ws = Workspace(picture, ground_fn, read_fn, budget)
    with open_writer(out) as writer:
        for i, call in enumerate(calls, start=1):
            value = ws.run(call, f"chain: column {call.column}")
            record = step_record(i, call, value, "", ws)
            if value.kind == "image":
                images.mkdir(parents=True, exist_ok=True)
                path = images / f"{value.image}.png"
                ws.images[value.image].save(path)
                record["image_file"] = str(path)
            writer.write(make_record("cogcom.step", **record))


def _load_vlm_backend(model: Path):
    from toolkit.cogcom.local import LocalVLMBackend

    return LocalVLMBackend.load(model)


@app.command()
def solve(
    items: Annotated[str, typer.Option("--items", help="cogcom.item JSONL (or -).")],
    policy: Annotated[str, typer.Option("--policy", help="fixed | oneshot | oneshot-native | vlm.")] = "fixed",
    llm: LLMOpt = None, record: RecordOpt = None,
    model: Annotated[Path | None, typer.Option("--model", help="A local image-text-to-text model folder.")] = None,
    execute: Annotated[str, typer.Option("--execute", help="all (run every call) or images (CROP_AND_ZOOMIN only).")]
    = "all",
    max_turns: Annotated[int, typer.Option("--max-turns", help="Most model replies per question (official: 11).")]
    = 11,
    zoom: Annotated[str, typer.Option("--zoom", help="The fixed chain's CROP_AND_ZOOMIN factor: 2 (official) or "
                                      "auto (fill the budget, x2..x4; not in the official grammar).")] = "2",
    budget: BudgetOpt = 448, grounder: GrounderOpt = "cv", ocr: OcrOpt = "tesseract",
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N items.")] = None,
    out: OutOpt = None, resume: ResumeOpt = False, skip_bad: SkipBadOpt = False, seed: SeedOpt = None,
):
    """Answer items with a manipulation chain, a one-shot baseline, or a VLM that calls manipulations.

    Example: reason cogcom solve --items d/items.jsonl --policy vlm --llm openai:qwen2-vl@http://localhost:8000/v1
    """
    from toolkit.cogcom.images import load_image
    from toolkit.cogcom.items import read_items
    from toolkit.cogcom.runtime import POLICIES, solve_item

    if policy not in POLICIES:
        raise InputError(f"--policy {policy}: expected one of {', '.join(POLICIES)}")
    if execute not in ("all", "images"):
        raise InputError(f"--execute {execute}: expected all or images")
    _check_budget(budget)
    if zoom not in ("2", "auto"):
        raise InputError(f"--zoom {zoom}: expected 2 or auto")
    if max_turns < 1:
        raise InputError(f"--max-turns {max_turns}: must be at least 1")
    if resume and out is None:
        raise InputError("--resume needs --out")
    backend = None
    if policy == "vlm":
        if (llm is None) == (model is None):
            raise InputError("--policy vlm needs exactly one of --llm URI or --model DIR")
        backend = make_llm(llm, record, seed_or_global(seed)) if llm else _load_vlm_backend(model)
    ground_fn, read_fn = _perceivers(grounder, ocr, backend if grounder == "vlm" else None)
    done = existing_keys(out, lambda r: r["id"]) if resume else set()
    bad, n = BadLines(), 0
    with open_writer(out, resume) as writer:
        for item in read_items(items, skip_bad, bad):
            if limit is not None and n >= limit:
                break
            n += 1
            if item["id"] in done:
                continue
            picture = load_image(item["image_path"], f"item {item['id']}")
            result = solve_item(item, picture, policy, grounder=ground_fn, reader=read_fn, budget=budget,
                                llm=backend, execute=execute, max_turns=max_turns, zoom=zoom)
            writer.write(make_record("cogcom.chain", **result, budget=budget))
    if backend is not None:
        report_usage(backend)
    report_bad(bad)


@app.command()
def synth(
    items: Annotated[str, typer.Option("--items", help="cogcom.item JSONL (or -).")],
    out: Annotated[Path, typer.Option("--out", help="Folder for trees.jsonl and chains.jsonl.")],
    llm: LLMOpt = None, record: RecordOpt = None,
    shots: Annotated[int, typer.Option("--shots", min=0, help="Demonstrations in the prompt (official: 5).")] = 5,
    export: Annotated[tuple[str, Path] | None, typer.Option("--export", help="FORMAT FILE; FORMAT is llava.")]
    = None,
    trust_final_step: Annotated[bool, typer.Option("--trust-final-step", help="A final None step is always found "
                                                                               "(official).")] = False,
    official_ocr: Annotated[bool, typer.Option("--official-ocr", help="OCR found when distance >= 0.5 and its text "
                                                                       "replaced by the answer (official).")] = False,
    budget: BudgetOpt = 448, grounder: GrounderOpt = "cv", ocr: OcrOpt = "tesseract",
    demos: Annotated[Path | None, typer.Option("--demos", help="Demonstrations JSON (default: shipped).")] = None,
    skip_bad: SkipBadOpt = False, seed: SeedOpt = None,
):
    """Write steps with an LLM, execute them into trees (DFS over groundings), keep root-to-found paths.

    Example: reason cogcom synth --items d/items.jsonl --llm py:toolkit.cogcom.planner:plan --out syn
    --export llava syn/llava.json
    """
    from toolkit.cogcom.export import Unexportable, export_chain
    from toolkit.cogcom.images import load_image
    from toolkit.cogcom.items import read_items
    from toolkit.cogcom.synth import Rules, maximal, pick_demos, synth_item

    _check_budget(budget)
    if export is not None and export[0] != "llava":
        raise InputError(f"--export {export[0]}: the only format is llava")
    from toolkit.cogcom.synth import DEMOS

    demo_path = demos or DEMOS
    try:
        demo_list = json.loads(demo_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"{demo_path}: cannot read demonstrations ({exc})") from None
    backend = make_llm(llm, record, seed_or_global(seed))
    ground_fn, read_fn = _perceivers(grounder, ocr, backend if grounder == "vlm" else None)
    rules = Rules(official_ocr=official_ocr, trust_final=trust_final_step)
    rng = random.Random(seed_or_global(seed))
    shown = pick_demos(demo_list, shots, seed_or_global(seed))
    bad, trees, exported, refused = BadLines(), [], [], {}
    out.mkdir(parents=True, exist_ok=True)
    with open_writer(out / "trees.jsonl") as tree_writer, open_writer(out / "chains.jsonl") as chain_writer:
        for item in read_items(items, skip_bad, bad):
            picture = load_image(item["image_path"], f"item {item['id']}")
            tree = synth_item(item, picture, backend, shown, shots, ground_fn, read_fn, budget, rules)
            tree_writer.write(make_record("cogcom.tree", **tree))
            trees.append(tree)
            for j, path in enumerate(tree["paths"]):
                chain_writer.write(make_record("cogcom.positive", id=f"{item['id']}-{j}", item=item["id"],
                                               path=path, correct=tree["paths_correct"][j]))
            if export is not None:
                rel = os.path.relpath(Path(item["image_path"]).resolve(), export[1].parent.resolve())
                for j in maximal(tree["paths"]):
                    try:
                        exported.append(export_chain(tree, tree["paths"][j], picture, rel, export[1].parent,
                                                     f"{item['id']}-{j}", rng))
                    except Unexportable as exc:  # counted and reported, never silently dropped
                        why = str(exc).split(" (")[0]
                        refused[why] = refused.get(why, 0) + 1
    if export is not None:
        export[1].parent.mkdir(parents=True, exist_ok=True)
        export[1].write_text(json.dumps(exported, indent=1), encoding="utf-8")
        console.info(f"exported {len(exported)} conversations to {export[1]}"
                     + "".join(f"; refused {n}: path {why}" for why, n in sorted(refused.items())))
    from toolkit.cogcom.synth import summarize

    summary = summarize(trees)
    with open_writer(None) as writer:
        writer.write(make_record("cogcom.synth_summary", **summary))
    console.info(f"yield {summary['yield']:.3f}, precision {summary['precision']:.3f} "
                 f"(official rules: yield {summary['official']['yield']:.3f}, "
                 f"precision {summary['official']['precision']:.3f}) on {summary['n']} questions")
    report_usage(backend)
    report_bad(bad)


@app.command("import-com")
def import_com(
    file: Annotated[Path, typer.Argument(help="Official CoMDataset file (JSONL or JSON list, with final_com).")],
    out: OutOpt = None,
):
    """Read the official CoMDataset into `cogcom.tree` records (positive paths recomputed).

    Example: reason cogcom import-com com_train.jsonl | jq '.paths | length'
    """
    from toolkit.cogcom.importcom import import_com as load

    trees = load(file)
    with open_writer(out) as writer:
        for tree in trees:
            writer.write(make_record("cogcom.tree", **tree))
    console.info(f"{len(trees)} trees, {sum(len(t['paths']) for t in trees)} positive paths")


@app.command("eval")
def evaluate(
    pred: Annotated[str, typer.Option("--pred", help="cogcom.chain JSONL (or -).")],
    gold: Annotated[Path, typer.Option("--gold", help="The items (cogcom.item JSONL).")],
    metric: Annotated[str, typer.Option("--metric", help="exact | anls | vqa | numeric.")] = "exact",
    out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Score answers: overall, per kind and per policy; also seconds per question.

    Example: reason cogcom solve --items d/items.jsonl --policy fixed | reason cogcom eval --pred - --gold d/items.jsonl
    """
    from toolkit.cogcom.metrics import METRICS
    from toolkit.cogcom.score import score_chains

    if metric not in METRICS:
        raise InputError(f"--metric {metric}: expected one of {', '.join(METRICS)}")
    bad = BadLines()
    golds = {}
    for i, rec in enumerate(read_records(gold, skip_bad=skip_bad, bad=bad), start=1):
        if "id" not in rec or "answer" not in rec:
            raise InputError(f"{gold}:{i}: field 'id' or 'answer' is missing")
        golds[rec["id"]] = rec
    chains = list(read_records(pred, types=["cogcom.chain"], required=("id",), skip_bad=skip_bad, bad=bad))
    result = score_chains(chains, golds, metric)
    with open_writer(out) as writer:
        writer.write(make_record("cogcom.eval", **result))
    console.info(f"{metric} {result['score']:.3f} on {result['n']} answers "
                 + " ".join(f"{k} {v['score']:.3f}" for k, v in result["by_kind"].items()))
    report_bad(bad)


ItemsOpt = Annotated[str, typer.Option("--items", help="cogcom.item JSONL (or -).")]


@app.command()
def tiny(
    items: ItemsOpt,
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the model, processor and tokenizer.")],
    image_size: Annotated[int, typer.Option(help="Input side (px) of the vision tower.")] = 96,
    patch_size: Annotated[int, typer.Option(help="ViT patch size (px).")] = 12,
    vision_hidden: Annotated[int, typer.Option(help="Vision width.")] = 96,
    vision_layers: Annotated[int, typer.Option(help="Vision layers.")] = 3,
    text_hidden: Annotated[int, typer.Option(help="Language-model width.")] = 128,
    text_layers: Annotated[int, typer.Option(help="Language-model layers.")] = 2,
    seed: SeedOpt = None,
):
    """Build the untrained tiny LLaVA that `train` teaches to crop (box coordinates as 100 word tokens each).

    Example: reason cogcom tiny --items train/items.jsonl --out models/cogcom-tiny
    """
    from dataclasses import replace

    from toolkit.cogcom.items import read_items
    from toolkit.cogcom.tiny import TINY_SPEC, build
    from toolkit.core.extras import require
    from toolkit.core.records import dumps

    require("ml")
    texts = [t for it in read_items(items) for t in (it["question"], str(it["answer"]))]
    spec = replace(TINY_SPEC, image_size=image_size, patch_size=patch_size, vision_hidden=vision_hidden,
                   vision_layers=vision_layers, text_hidden=text_hidden, text_layers=text_layers)
    summary = build(out, texts, seed=seed_or_global(seed), spec=spec)
    print(dumps(make_record("cogcom.model", **summary)))


@app.command()
def train(
    items: ItemsOpt,
    trees: Annotated[Path, typer.Option("--trees", help="trees.jsonl of `reason cogcom synth` on the items.")],
    model: Annotated[Path, typer.Option("--model", help="Model directory to train (from `reason cogcom tiny`).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the trained model and checkpoints.")],
    minutes: Annotated[float, typer.Option(help="Wall-clock cap; the schedule is fitted to it.")] = 20.0,
    epochs: Annotated[float, typer.Option(help="Passes over the training turns (if the cap allows).")] = 4.0,
    lr: Annotated[float, typer.Option(help="Peak learning rate.")] = 1e-3,
    batch_size: Annotated[int, typer.Option(help="Turns per step.")] = 16,
    chunk_minutes: Annotated[float | None, typer.Option(help="Stop after this long (checkpointed) without fitting "
                                                        "the schedule to it; --resume runs the next chunk.")] = None,
    aux_weight: Annotated[float, typer.Option(help="Weight of the training-only patch grounding loss on the image "
                                              "tokens (0: off).")] = 1.0,
    attention_weight: Annotated[float, typer.Option(help="Weight of the training-only loss that puts the "
                                                    "box-writing attention on the sign's image tokens.")] = 1.0,
    readout_weight: Annotated[float, typer.Option(help="Weight of the training-only loss that makes the box-writing "
                                                  "heads' output, read through the output words, name the "
                                                  "coordinate words (and each scene token its column and row).")
                              ] = 1.0,
    seed: SeedOpt = None, resume: ResumeOpt = False,
):
    """Teach a tiny model the synthesized read chains as the runtime plays them (coarse crop on the image-token
    grid, fine crop, OCR, answer), with a patch grounding loss on the image tokens; logs the coarse and fine
    crop IoU of 20 validation chains every 100 steps.

    Example: reason cogcom train --items train/items.jsonl --trees train/syn/trees.jsonl --model models/cogcom-tiny
    --out models/cogcom --minutes 20
    """
    from toolkit.cogcom.items import read_items
    from toolkit.cogcom.tiny import train_model
    from toolkit.core.extras import require
    from toolkit.core.records import RecordWriter

    require("ml")
    _vision()
    item_list = list(read_items(items))
    tree_map = {t["id"]: t for t in read_records(trees, types=["cogcom.tree"], required=("id", "nodes"))}
    writer = RecordWriter(None)
    summary = train_model(item_list, tree_map, str(model), str(out), minutes=minutes, epochs=epochs, lr=lr,
                          batch_size=batch_size, seed=seed_or_global(seed), resume=resume, writer=writer,
                          chunk_minutes=chunk_minutes, aux_weight=aux_weight,
                          attention_weight=attention_weight, readout_weight=readout_weight)
    writer.write(make_record("cogcom.train", **summary))
