"""`reason geomrel`: exact geometric-relationship items, a label verifier, a text-only solver, scoring."""

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
    ThreadsOpt,
    WorkersOpt,
    make_llm,
    open_writer,
    report_bad,
    report_usage,
    seed_or_global,
)
from toolkit.core import console
from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, make_record, read_records

app = typer.Typer(help="GeomRel: geometric-relationship questions with proven labels, a label verifier and scoring.\n\n"
                       "Example: reason geomrel generate --level advanced --n 50 --seed 3 | reason geomrel verify -",
                  no_args_is_help=True)


def _require_geo() -> None:
    from toolkit.core.extras import require

    require("geo")


def _items(path: str, skip_bad: bool, bad: BadLines):
    from toolkit.geomrel.items import check_item

    name = "<stdin>" if path == "-" else path
    for i, rec in enumerate(read_records(path, skip_bad=skip_bad, bad=bad), start=1):
        try:
            yield check_item(rec, f"{name}:{i}")
        except InputError as exc:
            if not skip_bad:
                raise
            bad.add(str(exc))


@app.command()
def generate(
    level: Annotated[str, typer.Option("--level", help="basic (depth 1) or advanced (depth 2-3).")] = "basic",
    domains: Annotated[str, typer.Option("--domains", help="Comma list of line, angle, shape.")] = "line,angle,shape",
    n: Annotated[int, typer.Option("--n", min=1, help="Number of items.")] = 10,
    depth: Annotated[int | None, typer.Option("--depth", help="Force a depth 1-3.")] = None,
    exclude: Annotated[str, typer.Option("--exclude-templates", help="Comma list of template ids to leave out.")] = "",
    wording: Annotated[str, typer.Option("--wording", help="project (the generator's sentences) or anchor (the "
                                                           "released files' wording and layout; --domains then "
                                                           "takes the anchor's tasks: line, collinear, angle "
                                                           "(angle names), shape (a point), segment).")]
    = "project",
    target: Annotated[str, typer.Option("--target", help="Comma list of domain:relation (e.g. line:perpendicular): "
                                                         "--n items proven to stand in each, for training data "
                                                         "balanced over relations; --domains is then unused.")] = "",
    seed: SeedOpt = None, out: OutOpt = None,
):
    """Generate items whose labels are proven with exact sympy arithmetic (witnesses for 'Cannot be inferred').

    Example: reason geomrel generate --level advanced --domains line,angle --n 20 --seed 3 > items.jsonl
    Example: reason geomrel generate --wording anchor --domains angle,segment --n 20 --seed 3 | reason geomrel verify -
    """
    _require_geo()
    from toolkit.geomrel.generate import generate as gen

    if wording not in ("project", "anchor"):
        raise InputError(f"--wording {wording}: expected project or anchor")
    domain_list = [d for d in domains.split(",") if d]
    excluded = [t for t in exclude.split(",") if t]
    if target:
        from toolkit.geomrel.targeted import generate_targeted

        keys = [k for k in target.split(",") if k]
        items = generate_targeted(dict.fromkeys(keys, n), seed_or_global(seed), level, depth, excluded)
        if len(items) < n * len(keys):
            console.warn(f"--target: {n * len(keys) - len(items)} of {n * len(keys)} draws found no item proven "
                         "in their relation; skipped")
    elif wording == "anchor":
        from toolkit.geomrel.anchor_tasks import generate_anchor

        items = generate_anchor(n, seed_or_global(seed), level, domain_list, depth, excluded)
    else:
        items = gen(n, seed_or_global(seed), level, domain_list, depth, excluded)
    with open_writer(out) as writer:
        for item in items:
            writer.write(make_record("geomrel.item", **item))


@app.command()
def verify(
    items: Annotated[str, typer.Argument(help="Items JSONL (or - for stdin).")],
    samples: Annotated[int, typer.Option("--samples", min=2, help="Float realizations per item.")] = 32,
    seed: SeedOpt = None, out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Audit labels from the question text alone: agree, disagree, ambiguous, inconsistent or unparsed.

    Example: reason geomrel load data/basic/*.jsonl | reason geomrel verify - | jq 'select(.status=="disagree")'
    """
    _require_geo()
    from toolkit.geomrel.verify import verify_item

    bad, counts = BadLines(), {}
    with open_writer(out) as writer:
        for item in _items(items, skip_bad, bad):
            verdict = verify_item(item, samples, seed_or_global(seed))
            counts[verdict["status"]] = counts.get(verdict["status"], 0) + 1
            if verdict.get("sup_flag"):
                counts["sup_flag"] = counts.get("sup_flag", 0) + 1
            writer.write(make_record("geomrel.verdict", **verdict))
    console.info("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    report_bad(bad)


@app.command()
def solve(
    items: Annotated[str, typer.Argument(help="Items JSONL (or - for stdin).")],
    seed: SeedOpt = None, out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Answer from the text alone with the numeric solver (never reads `answer`).

    Example: reason geomrel solve items.jsonl | reason geomrel eval - --gold items.jsonl
    """
    _require_geo()
    from toolkit.geomrel import dsl
    from toolkit.geomrel.verify import derive_from_text

    bad = BadLines()
    with open_writer(out) as writer:
        for item in _items(items, skip_bad, bad):
            found = derive_from_text(item["question"], 32, seed_or_global(seed))
            letter = None
            if found["derived"]:
                text = dsl.option_text(found["domain"], found["derived"])
                letter = "ABCDE"[item["options"].index(text)] if text in item["options"] else None
            writer.write(make_record("geomrel.pred", id=item["id"], letter=letter, parse_ok=letter is not None,
                                     raw=found["derived"] or found["status"], backend="solver"))
    report_bad(bad)


@app.command()
def ask(
    items: Annotated[str, typer.Argument(help="Items JSONL (or - for stdin).")],
    llm: LLMOpt = None, record: RecordOpt = None,
    prompt: Annotated[str, typer.Option("--prompt", help="plain | cot | geocot (two stages).")] = "plain",
    parser: Annotated[str, typer.Option("--parser", help="robust | anchor (last 'X.' in the reply).")] = "robust",
    shots: Annotated[int, typer.Option("--shots", min=0, help="Worked examples before each question.")] = 0,
    shots_from: Annotated[Path | None, typer.Option("--shots-from", help="Items to draw the examples from "
                                                                         "(default: basic items generated with "
                                                                         "seed + 1).")] = None,
    workers: WorkersOpt = 1, resume: ResumeOpt = False,
    seed: SeedOpt = None, out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Ask any backend each item (plain, step-by-step or GeoCoT) and parse its choice; never reads `answer`.
    Backend failures are recorded per item (`error`) and counted at the end; --resume asks those and the missing
    ones again. A run in which every request failed, or whose backend cannot be reached, ends with exit 1.

    Example: reason geomrel ask items.jsonl --llm openai:qwen@http://localhost:8000/v1 --prompt geocot --shots 2
    """
    from toolkit.geomrel.asking import ask_all

    backend, bad = make_llm(llm, record), BadLines()
    todo = list(_items(items, skip_bad, bad))
    stand_in, tally = ask_all(backend, todo, prompt=prompt, parser=parser, shots=shots, shots_from=shots_from,
                              workers=workers, resume=resume, seed=seed_or_global(seed), out=out)
    report_bad(bad)
    line = tally.summary()  # every request failed: one error line, exit 1
    if stand_in:
        console.info("stand-in backend: pipeline demo, not a model result")
    report_usage(backend)
    if tally.failed:
        console.warn(line)
    else:
        console.info(line)


@app.command()
def eval(  # noqa: A001 - the command is called eval
    preds: Annotated[str, typer.Argument(help="geomrel.pred JSONL (or -).")],
    gold: Annotated[Path, typer.Option("--gold", help="The items the predictions answer.")],
    verdicts: Annotated[Path | None, typer.Option("--verdicts", help="geomrel.verdict records of the items "
                                                                     "(from `verify`).")] = None,
    only: Annotated[str | None, typer.Option("--only", help="With --verdicts: score only items with these "
                                                            "statuses (comma list, e.g. agree).")] = None,
    out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Accuracy overall and by level, domain and relation code; unparsed replies count as wrong.

    Example: reason geomrel solve items.jsonl | reason geomrel eval - --gold items.jsonl
    """
    from toolkit.geomrel.evaluate import score

    bad = BadLines()
    # predictions first: in `generate | tee items.jsonl | ask - | eval - --gold items.jsonl` the gold file is
    # complete only once the predictions' stream has ended
    predictions = list(read_records(preds, types=["geomrel.pred"], required=("id",), skip_bad=skip_bad, bad=bad))
    golds = {it["id"]: it for it in _items(str(gold), skip_bad, bad)}
    if only is not None and verdicts is None:
        raise InputError("--only needs --verdicts")
    if verdicts is not None:
        from toolkit.geomrel.verify import STATUSES

        keep = {s.strip() for s in (only or "agree").split(",") if s.strip()}
        for s in keep - set(STATUSES):
            raise InputError(f"--only {s!r}: unknown status (expected {', '.join(STATUSES)})")
        status = {v["id"]: v["status"] for v in read_records(verdicts, types=["geomrel.verdict"], required=("id",
                                                                                                         "status"))}
        predictions = [p for p in predictions if status.get(p["id"]) in keep]
    result = score(predictions, golds)
    with open_writer(out) as writer:
        writer.write(make_record("geomrel.eval", **result))
    console.info(f"accuracy {result['accuracy']:.3f} on {result['n']} items")
    report_bad(bad)


@app.command()
def load(
    paths: Annotated[list[str], typer.Argument(help="Anchor files or folders (question files or ftdata/*.jsonl).")],
    out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Read a local copy of the anchor's files into geomrel.item records (level from the folder, domain from the
    relation code).

    Example: reason geomrel load data/basic/*.jsonl | reason geomrel verify - | jq 'select(.status=="disagree")'
    """
    from toolkit.geomrel.load import load_paths

    bad = BadLines()
    items = load_paths(paths, skip_bad, bad)
    with open_writer(out) as writer:
        for item in items:
            writer.write(make_record("geomrel.item", **item))
    console.info(f"loaded {len(items)} items")
    report_bad(bad)


@app.command()
def train(
    data: Annotated[list[str], typer.Option("--data", help="Training items (repeatable).")],
    model_out: Annotated[Path, typer.Option("--out", help="Model directory to write.")],
    minutes: Annotated[float, typer.Option("--minutes", min=0.0, help="Wall-clock training budget.")] = 20.0,
    steps: Annotated[int | None, typer.Option("--steps", min=1, help="Stop after this many steps.")] = None,
    rephrasings: Annotated[int, typer.Option("--rephrasings", min=0, help="Extra rewordings of each generated "
                                             "item (same construction and label).")] = 0,
    threads: ThreadsOpt = 1,
    exclude: Annotated[list[str] | None, typer.Option("--exclude", help="Items (e.g. the test sets) whose "
                                                      "questions, up to point letters, must not be trained on "
                                                      "(repeatable).")] = None,
    init: Annotated[Path | None, typer.Option("--init", help="Start from this trained classifier's weights and "
                                                             "vocabulary (fine-tune) instead of a fresh config.")]
    = None,
    checkpoint: Annotated[Path | None, typer.Option("--checkpoint", help="Resumable run: the state file a chunk "
                                                    "writes and the same command continues from (needs --steps; "
                                                    "--minutes is then one chunk's limit).")] = None,
    lr: Annotated[float, typer.Option("--lr", min=0.0, help="Peak learning rate.")] = 5e-4,
    chunk_steps: Annotated[int | None, typer.Option("--chunk-steps", min=1, help="With --checkpoint: end this "
                                                    "chunk after this many steps.")] = None,
    encoding: Annotated[str, typer.Option("--encoding", help="Input encoding of a fresh model: 'roles' (points "
                                          "named by their part in the statement, role tags for the asked "
                                          "elements) or 'points' (points named by order of appearance). "
                                          "--init keeps its model's.")] = "roles",
    seed: SeedOpt = None, skip_bad: SkipBadOpt = False,
):
    """Train the relation classifier (4-layer BERT, width 128, from a config) on generated items.

    Example: reason geomrel train --data train.jsonl --out model --minutes 15
    """
    _require_ml()
    from toolkit.geomrel.classifier import train as run_train

    bad = BadLines()
    items = [it for path in data for it in _items(path, skip_bad, bad)]
    held = [it for path in exclude or () for it in _items(path, skip_bad, bad)]
    if not items:
        raise InputError("--data: no items")
    summary = run_train(items, model_out, minutes=minutes, max_steps=steps, seed=seed_or_global(seed),
                        rephrasings=rephrasings, threads=threads, held=held, init=init, checkpoint=checkpoint,
                        chunk_steps=chunk_steps, lr=lr, encoding=encoding)
    if held:
        console.info(f"--exclude: {summary['dropped_held_out']} training texts ask a held-out question (up to "
                     "point letters); not trained on")
    console.info(f"{summary['steps']} steps on {summary['texts']} texts of {summary['items']} items in "
                 f"{summary['seconds']} s; loss {summary['loss_first']} -> {summary['loss_last']}")
    if not summary["done"]:
        console.info(f"chunk ended at step {summary['steps']} of {steps}: run the same command again to continue")
    report_bad(bad)


@app.command()
def classify(
    items: Annotated[str, typer.Argument(help="Items JSONL (or - for stdin).")],
    model: Annotated[str, typer.Option("--model", help="A trained classifier directory, or 'minilm' for the "
                                                       "baseline (MiniLM embeddings + logistic regression fitted "
                                                       "on --data).")],
    data: Annotated[list[str] | None, typer.Option("--data", help="Training items for --model minilm.")] = None,
    rephrasings: Annotated[int, typer.Option("--rephrasings", min=0, help="With --model minilm: extra rewordings "
                                             "of each training item, as `train --rephrasings` (same seed, same "
                                             "texts).")] = 0,
    exclude: Annotated[list[str] | None, typer.Option("--exclude", help="With --model minilm: held-out items "
                                                      "whose questions are not fitted on, as `train --exclude`.")]
    = None,
    seed: SeedOpt = None, out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Predict each item's relation with the trained classifier (never reads `answer`).

    Example: reason geomrel classify items.jsonl --model assets/geomrel/classifier -o preds.jsonl
    """
    _require_ml()
    seed = seed_or_global(seed)
    bad = BadLines()
    todo = list(_items(items, skip_bad, bad))
    if model == "minilm":
        from toolkit.geomrel.baseline import minilm_predict
        from toolkit.geomrel.classifier import training_texts

        if not data:
            raise InputError("--model minilm needs --data (the training items)")
        held = [it for path in exclude or () for it in _items(path, skip_bad, bad)]
        train_items, _ = training_texts([it for path in data for it in _items(path, skip_bad, bad)], rephrasings,
                                        seed, held)
        letters, name = minilm_predict(train_items, todo, seed), "minilm-logreg"
    else:
        from toolkit.core.assets import asset_path
        from toolkit.geomrel.classifier import load as load_model
        from toolkit.geomrel.classifier import predict

        path = Path(model)
        if not path.exists() and model.startswith("assets/"):
            path = asset_path(model.removeprefix("assets/"))
        letters, name = predict(*load_model(path), todo), "classifier"
    with open_writer(out) as writer:
        for item, letter in zip(todo, letters, strict=True):
            writer.write(make_record("geomrel.pred", id=item["id"], letter=letter, parse_ok=letter is not None,
                                     raw=None, backend=name))
    report_bad(bad)


def _require_ml() -> None:
    from toolkit.core.extras import require

    require("ml", "torch", "transformers")
