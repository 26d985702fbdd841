"""`reason dsg`: Deep Schema Grounding — concept schemas grounded level by level with any VLM."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import LLMOpt, OutOpt, RecordOpt, ResumeOpt, SeedOpt, SkipBadOpt, seed_or_global

app = typer.Typer(help="Deep Schema Grounding: concept schemas grounded hierarchically by any VLM.\n\n"
                       "Example: reason dsg gen --concepts maze --n 20 --styles heldout --out va && "
                       "reason dsg run --items va/items.jsonl --schemas assets/dsg/schemas --mode dsg | "
                       "reason dsg eval --pred - --gold va/items.jsonl",
                  no_args_is_help=True)

SchemasOpt = Annotated[Path | None, typer.Option("--schemas", help="Directory of *.schema.json "
                                                 "(default: the shipped schemas).")]


def _schemas(path: Path | None):
    from toolkit.core.assets import asset_path
    from toolkit.dsg.schema import load_schemas

    return load_schemas(path if path is not None else asset_path("dsg/schemas"))


def _abstract_items(abstract: Path | None) -> list[dict] | None:
    """The abstract items of --abstract, their image paths resolved against the file's folder."""
    if abstract is None:
        return None
    from toolkit.core.records import read_records

    items = list(read_records(abstract, types=["dsg.item"], required=("image", "question", "answer")))
    for it in items:
        p = Path(it["image"])
        it["image"] = str(p if p.is_absolute() else abstract.parent / p)
    return items


@app.command()
def gen(
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for images/, items.jsonl, primitives.jsonl.")],
    concepts: Annotated[str, typer.Option("--concepts", help="Comma-separated: tictactoe, maze, stacks.")]
    = "tictactoe,maze,stacks",
    n: Annotated[int, typer.Option("--n", help="Scenes (one abstract question each) per concept.")] = 300,
    styles: Annotated[str, typer.Option("--styles", help="train or heldout.")] = "train",
    schemas: SchemasOpt = None,
    export: Annotated[tuple[str, Path] | None, typer.Option("--export", help="Also write FORMAT FILE "
                                                            "(llava: LLaVA conversation JSON).")] = None,
    seed: SeedOpt = None,
):
    """Render synthetic scenes with exact gold: abstract items and the primitive (schema-node) questions.

    Example: reason dsg gen --concepts maze,tictactoe --n 300 --styles heldout --seed 10000 --out runs/va
    """
    import json

    from toolkit.core.errors import InputError
    from toolkit.core.records import RecordWriter, dumps, make_record
    from toolkit.dsg.data import generate_split
    from toolkit.dsg.generate import check_concepts
    from toolkit.dsg.styles import get_style

    if n < 1:
        raise InputError(f"--n {n}: must be at least 1")
    if export is not None and export[0] != "llava":
        raise InputError(f"--export {export[0]!r}: unknown format (expected llava)")
    names = check_concepts([c.strip() for c in concepts.split(",") if c.strip()])
    style = get_style(styles)
    out.mkdir(parents=True, exist_ok=True)
    items, prims = generate_split(names, n, style, seed_or_global(seed), out, _schemas(schemas))
    for name, recs in (("items.jsonl", items), ("primitives.jsonl", prims)):
        with RecordWriter(out / name) as w:
            for r in recs:
                w.write(r)
    if export is not None:
        from toolkit.dsg.prompts import direct_question, with_options

        conv = [{"id": f"{r['id']}/{r['node']}" if "node" in r else r["id"], "image": str(out / r["image"]),
                 "conversations": [{"from": "human", "value": "<image>\n" + (
                     r["question"] if "node" in r else direct_question(with_options(r["question"], r.get("choices"))))},
                                   {"from": "gpt", "value": r.get("gold", r.get("answer"))}]}
                for r in prims + items]
        export[1].write_text(json.dumps(conv, indent=1) + "\n", encoding="utf-8")
    print(dumps(make_record("dsg.split", out=str(out), style=style.name, concepts=names, items=len(items),
                            primitives=len(prims))))


@app.command()
def tiny(
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the model, processor and tokenizer.")],
    data: Annotated[list[Path], typer.Option("--data", help="primitives.jsonl / items.jsonl whose words form the "
                                             "vocabulary.")],
    seed: SeedOpt = None,
):
    """Build the tiny Swin LLaVA (one word vocabulary over primitive and abstract texts).

    Example: reason dsg tiny --data runs/tr/primitives.jsonl --data runs/tr/items.jsonl --out models/dsg-tiny
    """
    from toolkit.core.extras import require
    from toolkit.core.records import dumps, make_record, read_records
    from toolkit.dsg.prompts import direct_question, with_options
    from toolkit.dsg.train import build

    require("ml")
    texts: list[str] = []
    for path in data:
        for r in read_records(path, types=["dsg.primitive", "dsg.item"]):
            texts += [r["question"], direct_question(with_options(r["question"], r.get("choices"))),
                      str(r.get("gold", r.get("answer", "")))]
            texts += list(r.get("choices") or [])
    summary = build(out, texts, seed=seed_or_global(seed))
    print(dumps(make_record("dsg.model", **summary)))


@app.command()
def train(
    data: Annotated[Path, typer.Option("--data", help="primitives.jsonl from `reason dsg gen`.")],
    model: Annotated[Path, typer.Option("--model", help="Model directory to train (from `reason dsg tiny`).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the trained model and checkpoints.")],
    abstract: Annotated[Path | None, typer.Option("--abstract", help="items.jsonl: also train on the abstract "
                                                  "questions (the end-to-end baseline).")] = None,
    abstract_repeat: Annotated[int, typer.Option(min=1, help="Times each abstract question is repeated.")] = 4,
    minutes: Annotated[float, typer.Option(help="Wall-clock cap; the schedule is fitted to it.")] = 20.0,
    epochs: Annotated[float, typer.Option(help="Passes over the training questions (if the cap allows).")] = 3.0,
    lr: Annotated[float, typer.Option(help="Peak learning rate.")] = 2e-3,
    batch_size: Annotated[int, typer.Option(help="Questions per step.")] = 16,
    eval_every: Annotated[int | None, typer.Option(help="Also log validation accuracy every N steps.")] = None,
    per_image: Annotated[int | None, typer.Option(help="At most N primitive questions per image (seeded sample).")]
    = None,
    images_per_batch: Annotated[int | None, typer.Option(min=1, help="Group each step's questions by image: N "
                                                         "images, each encoded once, with --per-image questions "
                                                         "each drawn afresh per epoch (--batch-size then only "
                                                         "sizes evaluation).")] = None,
    seed: SeedOpt = None,
    resume: ResumeOpt = False,
):
    """Train answer-only on primitive questions (and abstract ones with --abstract); logs per-node validation
    accuracy next to the majority-answer rate.

    Example: reason dsg train --data runs/tr/primitives.jsonl --model models/dsg-tiny --out models/dsg --minutes 20
    """
    from toolkit.core.extras import require
    from toolkit.core.records import RecordWriter, make_record
    from toolkit.dsg.data import read_primitives
    from toolkit.dsg.train import train_model

    require("ml")
    prims = read_primitives(data)
    items = _abstract_items(abstract)
    writer = RecordWriter(None)
    summary = train_model(prims, items, str(model), str(out), minutes=minutes, epochs=epochs, lr=lr,
                          batch_size=batch_size, seed=seed_or_global(seed), eval_every=eval_every,
                          abstract_repeat=abstract_repeat, per_image=per_image, images_per_batch=images_per_batch,
                          resume=resume, writer=writer)
    writer.write(make_record("dsg.train", **summary))


@app.command("train-grounder")
def train_grounder(
    data: Annotated[Path, typer.Option("--data", help="primitives.jsonl from `reason dsg gen`.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the grounder, its log and checkpoint.")],
    abstract: Annotated[Path | None, typer.Option("--abstract", help="items.jsonl: also train on each image's "
                                                  "abstract question (the same network then answers directly: "
                                                  "the end-to-end baseline).")] = None,
    epochs: Annotated[float, typer.Option(help="Passes over the training images (fixes the schedule).")] = 8.0,
    lr: Annotated[float, typer.Option(help="Peak learning rate.")] = 2e-3,
    images_per_batch: Annotated[int, typer.Option(min=1, help="Images per step, with all their questions.")] = 16,
    minutes: Annotated[float, typer.Option(help="This chunk's wall-clock limit; it ends with a checkpoint.")] = 10.0,
    init: Annotated[Path | None, typer.Option("--init", help="Start from this grounder's weights (a second stage "
                                              "with its own schedule).")] = None,
    outlines: Annotated[bool, typer.Option("--outlines", help="Also augment by keeping only the inner edge of the "
                                           "ink (marks learned by shape, not fill).")] = False,
    seed: SeedOpt = None,
    resume: ResumeOpt = False,
):
    """Train the CNN grounder (the default grounding model of `run`) in resumable chunks.

    Example: reason dsg train-grounder --data runs/tr/primitives.jsonl --abstract runs/tr/items.jsonl
    --out runs/grounder --minutes 10 (then the same with --resume until the record says done)
    """
    from toolkit.core.extras import require
    from toolkit.core.records import dumps, make_record
    from toolkit.dsg.cnn_train import train_grounder as fit
    from toolkit.dsg.data import read_primitives

    require("ml")
    prims = read_primitives(data)
    items = _abstract_items(abstract)
    summary = fit(prims, items, out, epochs=epochs, lr=lr, images_per_batch=images_per_batch, minutes=minutes,
                  seed=seed_or_global(seed), resume=resume, init=init, outlines=outlines)
    print(dumps(make_record("dsg.grounder_train", **summary)))


@app.command()
def schema(
    concept: Annotated[str | None, typer.Option("--concept", help="Concept to extract a schema for.")] = None,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the schema JSON here (default stdout).")]
    = None,
    check: Annotated[Path | None, typer.Option("--check", help="Validate a schema file (JSON or notation).")] = None,
    show: Annotated[Path | None, typer.Option("--show", help="Print a schema's DAG level by level.")] = None,
    retries: Annotated[int, typer.Option(min=0, help="Re-asks on unparsable output or a cycle.")] = 2,
    seed: SeedOpt = None,
):
    """Extract a concept schema with an LLM (two shipped schemas as few-shot), or --check / --show one.

    Example: reason dsg schema --concept maze --llm replay:assets/dsg/schema-replay.jsonl -o maze.schema.json
    """
    import json

    from cli.common import make_llm, report_usage
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.core.records import dumps, make_record
    from toolkit.dsg.schema import levels, load_schema, to_notation

    require("dsg")
    if check is not None or show is not None:
        s = load_schema(check or show)
        if show is not None:
            print(to_notation(s))
            for i, level in enumerate(levels(s)):
                parts = [f"{n} <- {', '.join(s.node(n).parents) or '-'}" for n in level]
                print(f"level {i}: " + "; ".join(parts))
        else:
            print(dumps(make_record("dsg.schema_check", path=str(check), concept=s.concept, nodes=len(s.nodes),
                                    levels=len(levels(s)), ok=True)))
        return
    if not concept:
        raise InputError("--concept is required (or --check / --show a schema file)")
    from toolkit.dsg.extract import extract_schema

    backend = make_llm(llm, record, seed)
    from toolkit.core.provenance import label

    s = extract_schema(backend, concept, retries=retries)
    doc = label(s.to_json())  # a stand-in's schema says so
    if out is not None:
        out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    else:
        print(dumps(doc))
    report_usage(backend)


@app.command()
def run(
    items: Annotated[Path, typer.Option("--items", help="items.jsonl (dsg.item records; '-' = stdin).")],
    mode: Annotated[str, typer.Option("--mode", help="direct, cot or dsg.")] = "dsg",
    compose: Annotated[str, typer.Option("--compose", help="dsg: program (registered composer) or vlm.")]
    = "program",
    schemas: SchemasOpt = None,
    model: Annotated[Path | None, typer.Option("--model", help="Local VLM directory, or a grounder from "
                                               "`train-grounder` (default: the shipped CNN grounder, "
                                               "assets/dsg/grounder).")] = None,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    grounding_cache: Annotated[Path | None, typer.Option("--grounding-cache", help="Persistent cache of grounding "
                                                         "answers (JSONL); a rerun asks nothing it holds.")] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="Questions per local generate call.")] = 32,
    batch_items: Annotated[int, typer.Option(min=1, help="Items grounded together, level by level.")] = 16,
    out: OutOpt = None,
    resume: ResumeOpt = False,
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
):
    """Answer items directly, with chain of thought, or by Deep Schema Grounding.

    A multiple-choice answer that names none of the options is kept with `in_choices: false` (an abstention,
    scored wrong by eval) and counted on stderr; a run in which no answer names an option exits 1.
    --compose program answers only the generated tasks its composer knows (not imported VAD questions).

    Example: reason dsg run --items va/items.jsonl --mode dsg --compose program > va/pred.jsonl
    """
    from cli.common import make_llm, open_writer, report_usage
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.core.records import BadLines, read_records
    from toolkit.dsg.data import read_items
    from toolkit.dsg.ground import ChatAsker, GroundingCache, LocalAsker
    from toolkit.dsg.run import COMPOSE, MODES, ChoiceTally, check_items, run_baseline, run_dsg

    require("dsg")
    if mode not in MODES:
        raise InputError(f"--mode {mode!r}: expected one of {', '.join(MODES)}")
    if compose not in COMPOSE:
        raise InputError(f"--compose {compose!r}: expected one of {', '.join(COMPOSE)}")
    if model is not None and llm is not None:
        raise InputError("--model and --llm exclude each other")
    loaded = read_items(items)
    shipped = _schemas(schemas) if mode == "dsg" else {}
    bad = BadLines()
    if skip_bad:
        keep = []
        for it in loaded:
            try:
                check_items([it], shipped, mode, compose)
                _check_image(it)
            except InputError as exc:
                bad.add(str(exc))
                continue
            keep.append(it)
        if bad.count and not keep:
            raise InputError(f"{items}: all {bad.count} item(s) rejected; first: {bad.examples[0]}")
        loaded = keep
    else:
        check_items(loaded, shipped, mode, compose)
        for it in loaded:
            _check_image(it)
    done: set[str] = set()
    if resume and out is not None and out.is_file():
        done = {str(r["id"]) for r in read_records(out, types=["dsg.answer", "dsg.grounding"])
                if r["type"] == "dsg.answer"}
        _drop_partial(out, done)
    todo = [it for it in loaded if it.id not in done]
    if llm is not None:
        backend = make_llm(llm, record, seed)
        asker = ChatAsker(backend)
    else:
        require("ml")
        from toolkit.core.assets import asset_path
        from toolkit.core.vlm import load_vlm
        from toolkit.dsg.cnn import CNNGrounder, is_grounder
        from toolkit.dsg.ground import GrounderAsker

        path = model if model is not None else asset_path("dsg/grounder")
        name = f"local:{Path(path).resolve().name}"
        if is_grounder(path):
            asker = GrounderAsker(CNNGrounder(path), name)
        else:
            asker = LocalAsker(load_vlm(path, device="auto"), name, batch_size)
        backend = None
    cache = GroundingCache(grounding_cache)
    writer = open_writer(out, resume=resume)
    tally = ChoiceTally()
    try:
        stream = (run_dsg(todo, shipped, asker, compose, cache, batch_items=batch_items) if mode == "dsg"
                  else run_baseline(todo, asker, mode, cache))
        for rec in stream:
            writer.write(rec)
            tally.add(rec)
    finally:
        writer.close()
        cache.close()
    from toolkit.core import console

    if skip_bad:
        from cli.common import report_bad

        report_bad(bad)
    outside = tally.summary()  # no answer among the options at all: one error line, exit 1
    console.info(f"{len(todo)} item(s) answered ({len(done)} kept from --resume); {asker.calls} model call(s)")
    if outside:
        console.warn(outside)
    if backend is not None:
        report_usage(backend)


def _check_image(item) -> None:
    from toolkit.core.vlm import load_image

    load_image(item.image, where=f"item {item.id}")


def _drop_partial(out: Path, done: set[str]) -> None:
    """Keep only the records of answered items (a crash may leave an item's groundings without its answer)."""
    import json

    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    keep = [ln for ln in lines if ln.strip() and str(json.loads(ln).get("id")) in done]
    out.write_text("".join(keep), encoding="utf-8")


@app.command("eval")
def eval_cmd(
    pred: Annotated[str, typer.Option("--pred", help="dsg.answer (+ dsg.grounding) records; '-' = stdin.")],
    gold: Annotated[Path, typer.Option("--gold", help="items.jsonl with answers.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON record instead of a table.")] = False,
    semantic: Annotated[bool, typer.Option("--semantic", help="Open answers: MiniLM cosine >= 0.8 also counts.")]
    = False,
    prior: Annotated[Path | None, typer.Option("--prior", help="A training split's items.jsonl: also score the "
                                               "question-only prior (its most frequent answer per question).")]
    = None,
):
    """Accuracy per concept x question type with bootstrap 95 % CIs, chance (weighted by the rows' items
    overall) and with --prior the question-only prior's accuracy on the same items; for synthetic items the
    grounding accuracy per node and the first wrongly grounded node behind each wrong answer.

    Example: reason dsg eval --pred va/pred.jsonl --gold va/items.jsonl
    """
    from toolkit.core.extras import require
    from toolkit.core.records import dumps, make_record
    from toolkit.dsg.evaluate import evaluate, format_table

    require("dsg")
    sim = None
    if semantic:
        from toolkit.core.minilm import minilm_embedder

        embed = minilm_embedder()

        def sim(a: str, b: str) -> float:
            u, v = embed([a, b])
            dot = sum(x * y for x, y in zip(u, v, strict=True))
            return dot / ((sum(x * x for x in u) ** 0.5) * (sum(y * y for y in v) ** 0.5) or 1.0)
    from toolkit.dsg.evaluate import prior_from

    result = evaluate(pred, gold, semantic=sim, prior=prior_from(prior) if prior is not None else None)
    if as_json:
        print(dumps(make_record("dsg.eval", **result)))
    else:
        print(format_table(result))


@app.command("import-vad")
def import_vad(
    directory: Annotated[Path, typer.Argument(help="The benchmark's <category>/<concept>/vqa.json tree.")],
    out: OutOpt = None,
    skip_bad: SkipBadOpt = False,
):
    """Read the Visual Abstractions benchmark into dsg.item records (multiple-choice questions; the inline
    options become `choices`). An item whose image is missing is an error naming it and the path (with
    --skip-bad: left out and counted).

    Example: reason dsg import-vad VAD > vad/items.jsonl
    """
    from cli.common import open_writer, report_bad
    from toolkit.core.errors import InputError
    from toolkit.core.records import BadLines
    from toolkit.dsg.vad import import_vad as load

    bad = BadLines() if skip_bad else None
    recs = list(load(directory, bad=bad))  # every item checked before anything is written
    if bad is not None and bad.count and not recs:
        raise InputError(f"{directory}: all {bad.count} item(s) rejected; first: {bad.examples[0]}")
    with open_writer(out) as writer:
        for rec in recs:
            writer.write(rec)
    if bad is not None:
        report_bad(bad)
