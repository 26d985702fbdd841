"""`reason geomrel`: exact geometric-relationship items, a label verifier, a text-only solver, scoring."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import (
    LLMOpt,
    OutOpt,
    RecordOpt,
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
    seed: SeedOpt = None, out: OutOpt = None,
):
    """Generate items whose labels are proven with exact sympy arithmetic (witnesses for 'Cannot be inferred').

    Example: reason geomrel generate --level advanced --domains line,angle --n 20 --seed 3 > items.jsonl
    """
    _require_geo()
    from toolkit.geomrel.generate import generate as gen

    items = gen(n, seed_or_global(seed), level, [d for d in domains.split(",") if d],
                depth, [t for t in exclude.split(",") if t])
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
    seed: SeedOpt = None, out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Ask any backend each item (plain, step-by-step or GeoCoT) and parse its choice; never reads `answer`.

    Example: reason geomrel ask items.jsonl --llm openai:qwen@http://localhost:8000/v1 --prompt geocot
    """
    from toolkit.geomrel.prompts import PROMPTS, ask_item

    if prompt not in PROMPTS:
        raise InputError(f"--prompt {prompt}: expected one of {', '.join(PROMPTS)}")
    if parser not in ("robust", "anchor"):
        raise InputError(f"--parser {parser}: expected robust or anchor")
    backend, bad = make_llm(llm, record), BadLines()
    stand_in = backend.name.startswith(("py:", "replay:"))
    with open_writer(out) as writer:
        for item in _items(items, skip_bad, bad):
            blind = {k: v for k, v in item.items() if k not in ("answer", "relation", "canonical", "witnesses")}
            pred = ask_item(backend, blind, prompt, parser)
            writer.write(make_record("geomrel.pred", **pred, backend="stand-in" if stand_in else backend.name))
    if stand_in:
        console.info("stand-in backend: pipeline demo, not a model result")
    report_usage(backend)
    report_bad(bad)


@app.command()
def eval(  # noqa: A001 - the command is called eval
    preds: Annotated[str, typer.Argument(help="geomrel.pred JSONL (or -).")],
    gold: Annotated[Path, typer.Option("--gold", help="The items the predictions answer.")],
    out: OutOpt = None, skip_bad: SkipBadOpt = False,
):
    """Accuracy overall and by level, domain and relation code; unparsed replies count as wrong.

    Example: reason geomrel solve items.jsonl | reason geomrel eval - --gold items.jsonl
    """
    from toolkit.geomrel.evaluate import score

    bad = BadLines()
    golds = {it["id"]: it for it in _items(str(gold), skip_bad, bad)}
    predictions = list(read_records(preds, types=["geomrel.pred"], required=("id",), skip_bad=skip_bad, bad=bad))
    result = score(predictions, golds)
    with open_writer(out) as writer:
        writer.write(make_record("geomrel.eval", **result))
    console.info(f"accuracy {result['accuracy']:.3f} on {result['n']} items")
    report_bad(bad)
