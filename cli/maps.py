"""`reason maps`: circuit diagrams to SPICE netlists, ngspice simulation and simulation-aided answers (MAPS)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import OutOpt, SeedOpt, SkipBadOpt, WorkersOpt, open_writer, report_bad, seed_or_global
from toolkit.core import console
from toolkit.core.errors import InputError
from toolkit.core.records import BadLines

app = typer.Typer(help="Circuit diagram -> SPICE netlist -> ngspice -> answer (MAPS).\n\n"
                       "Example: reason maps generate --tier small --n 20 --seed 7 --out-dir runs/c",
                  no_args_is_help=True)

TIERS = ("small", "medium", "dynamic", "v11")


def _need_circuit() -> None:
    from toolkit.core.extras import require

    require("circuit")


@app.command()
def generate(
    out_dir: Annotated[Path, typer.Option("--out-dir", help="Folder for circuits.jsonl, questions.jsonl, images/.")],
    tier: Annotated[str, typer.Option("--tier", help="small, medium, dynamic or v11.")] = "small",
    n: Annotated[int, typer.Option("--n", min=1, help="Number of circuits.")] = 20,
    style: Annotated[str, typer.Option("--style", help="clean or noisy (jitter, rotation, blur, JPEG).")] = "clean",
    questions: Annotated[int, typer.Option("--questions", min=0, help="Questions per circuit.")] = 2,
    labels: Annotated[str, typer.Option("--labels", help="circuit (the anchor: all values shown or none, one draw "
                                        "per circuit) or element (one draw per element).")] = "circuit",
    workers: WorkersOpt = 1,
    seed: SeedOpt = None,
):
    """Random grid circuits with schematic images, SPICE netlists and questions answered by ngspice.

    Example: reason maps generate --tier small --n 20 --seed 7 --out-dir runs/c
    """
    if tier not in TIERS:
        raise InputError(f"--tier {tier}: must be one of {', '.join(TIERS)}")
    if style not in ("clean", "noisy"):
        raise InputError(f"--style {style}: must be clean or noisy")
    if labels not in ("circuit", "element"):
        raise InputError(f"--labels {labels}: must be circuit or element")
    _need_circuit()
    from toolkit.maps.dataset import generate as run
    from toolkit.maps.simulate import ngspice_binary

    ngspice_binary()
    circuits, count = run(tier, n, seed_or_global(seed), out_dir, style=style, workers=workers, per_circuit=questions,
                          labels=labels)
    console.info(f"wrote {circuits} circuits and {count} questions to {out_dir}")


EngineOpt = Annotated[str, typer.Option("--engine", help="pyspice (shared library in a worker) or ngspice (-b).")]
TimeoutOpt = Annotated[float, typer.Option("--timeout", min=0.01, help="Seconds per simulation; the child is killed.")]


def _simulator(engine: str, timeout: float):
    if engine not in ("pyspice", "ngspice"):
        raise InputError(f"--engine {engine}: must be pyspice or ngspice")
    _need_circuit()
    from toolkit.maps.simulate import Simulator, ngspice_binary

    ngspice_binary()
    return Simulator(engine, timeout=timeout)


@app.command()
def simulate(
    source: Annotated[str, typer.Argument(help="A .cir file, or JSONL records with a netlist (- for stdin).")],
    engine: EngineOpt = "pyspice",
    timeout: TimeoutOpt = 5.0,
    analysis: Annotated[str, typer.Option("--analysis", help="op, tran or ac (or a full card: 'tran 1u 5m uic').")]
    = "op",
    out: OutOpt = None,
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
):
    """Simulate netlists with ngspice; writes maps.sim records (node voltages, currents, meter values).

    Example: reason maps simulate runs/c/circuits.jsonl --engine ngspice | jq .meters
    """
    from toolkit.core.records import BadLines
    from toolkit.maps.io import iter_netlists, sim_record
    from toolkit.maps.netlist import EMPTY
    from toolkit.maps.simulate import SimResult

    words = analysis.split()
    if not words or words[0] not in ("op", "tran", "ac"):
        raise InputError(f"--analysis {analysis}: must start with op, tran or ac")
    bad = BadLines()
    is_file = source != "-" and source.lower().endswith((".cir", ".sp", ".spice", ".net"))
    with _simulator(engine, timeout) as sim, open_writer(out) as writer:
        for cid, text, net, _ in iter_netlists(source, skip_bad=skip_bad, bad=bad, allow_empty=not is_file):
            if net is None:
                result = SimResult(False, engine, 0.0, error="netlist could not be parsed")
            elif net.has_empty:
                result = SimResult(False, engine, 0.0, error=f"netlist has {EMPTY} values; fill them first")
            else:
                result = sim.run(net, analysis)
            writer.write(sim_record(cid, text, result, analysis))
    report_bad(bad)


MinConfidenceOpt = Annotated[float | None, typer.Option(
    "--min-confidence", min=0.0, max=1.0,
    help="Grid and exemplar readers: the confidence below which a read says parsed: false (default: the "
         "model's).")]


@app.command()
def perceive(
    source: Annotated[str, typer.Argument(help="maps.circuit records (JSONL), an image file, or a folder of images.")],
    model: Annotated[Path | None, typer.Option("--model", help="The grid reader (default: "
                                                "assets/maps/ppm-grid), the exemplar reader "
                                                "(assets/maps/ppm-exemplar), a learned PPM (assets/maps/ppm) "
                                                "or any local vision-language model directory.")] = None,
    llm: Annotated[str | None, typer.Option("--llm", help="A vision LLM instead: openai:MODEL@URL.")] = None,
    min_confidence: MinConfidenceOpt = None,
    out: OutOpt = None,
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
):
    """Read circuit images into SPICE netlists (maps.netlist); only the image is read. The grid and exemplar
    readers write a confidence, and `parsed: false` (with the netlist it read) below --min-confidence.

    Example: reason maps perceive runs/c/circuits.jsonl > netlists.jsonl
    """
    from toolkit.maps.perceive import image_jobs, perceive_all

    bad = BadLines()
    jobs = image_jobs(source, skip_bad=skip_bad, bad=bad)
    with open_writer(out) as writer:
        for record in perceive_all(jobs, model=model, llm=llm, min_confidence=min_confidence):
            writer.write(record)
    report_bad(bad)


AnswererOpt = Annotated[str, typer.Option("--answerer", help="rule (simulation), reduce (no SPICE) or llm.")]


@app.command()
def answer(
    netlists: Annotated[str, typer.Argument(help="maps.sim or maps.netlist records (- for stdin).")],
    questions: Annotated[Path, typer.Option("--questions", help="maps.question records.")],
    answerer: AnswererOpt = "rule",
    no_sim: Annotated[bool, typer.Option("--no-sim", help="LLM prompt without simulation results.")] = False,
    llm: Annotated[str | None, typer.Option("--llm", help="LLM URI for --answerer llm.")] = None,
    record: Annotated[Path | None, typer.Option("--record", help="Record the LLM exchanges here (replay:FILE).")]
    = None,
    engine: EngineOpt = "pyspice",
    timeout: TimeoutOpt = 5.0,
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Answer questions from netlists (and their simulations); writes maps.answer records.

    Example: reason maps answer --questions runs/c/questions.jsonl sims.jsonl > answers.jsonl
    """
    from toolkit.maps.answering import answer_all

    if answerer not in ("rule", "reduce", "llm"):
        raise InputError(f"--answerer {answerer}: must be rule, reduce or llm")
    if no_sim and answerer == "rule":
        raise InputError("--no-sim: the rule answerer reads simulations; use --answerer reduce for no simulation")
    need_sim = answerer == "rule" or (answerer == "llm" and not no_sim)
    sim = _simulator(engine, timeout) if need_sim else None
    backend = None
    if answerer == "llm":
        from cli.common import make_llm

        backend = make_llm(llm, record=record)
    try:
        with open_writer(out) as writer:
            for record in answer_all(netlists, questions, answerer=answerer, simulator=sim, llm=backend,
                                     no_sim=no_sim):
                writer.write(record)
    finally:
        if sim is not None:
            sim.close()


@app.command()
def solve(
    source: Annotated[str, typer.Argument(help="maps.circuit records or images.")],
    questions: Annotated[Path, typer.Option("--questions", help="maps.question records.")],
    model: Annotated[Path | None, typer.Option("--model", help="PPM directory (default: "
                                                "assets/maps/ppm-grid).")] = None,
    engine: EngineOpt = "pyspice",
    timeout: TimeoutOpt = 5.0,
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Perceive, simulate and answer in one go (rule answerer); writes maps.answer records.

    Example: reason maps solve runs/c/circuits.jsonl --questions runs/c/questions.jsonl
    """
    from toolkit.maps.answering import answer_records
    from toolkit.maps.perceive import image_jobs, perceive_all

    netlists = list(perceive_all(image_jobs(source), model=model))
    with _simulator(engine, timeout) as sim, open_writer(out) as writer:
        for record in answer_records(netlists, questions, answerer="rule", simulator=sim):
            writer.write(record)


@app.command()
def equiv(
    pred: Annotated[str, typer.Argument(help="Predicted netlists (maps.netlist/maps.sim records, - for stdin).")],
    gold: Annotated[Path, typer.Option("--gold", help="maps.circuit records with the gold netlists.")],
    engine: EngineOpt = "pyspice",
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Compare predicted netlists with gold: exact equivalence (isomorphism) and the anchor metrics.

    Example: reason maps perceive runs/c/circuits.jsonl | reason maps equiv - --gold runs/c/circuits.jsonl
    """
    from toolkit.maps.evaluate import equiv_records

    with _simulator(engine, 5.0) as sim, open_writer(out) as writer:
        for record in equiv_records(pred, gold, sim):
            writer.write(record)


@app.command("eval")
def evaluate(
    answers: Annotated[str, typer.Argument(help="maps.answer records (- for stdin).")],
    gold: Annotated[Path, typer.Option("--gold", help="maps.question records.")],
    rtol: Annotated[float, typer.Option("--rtol", min=0.0, help="Relative tolerance of a numeric answer.")] = 0.01,
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Score answers against gold questions (numeric within rtol, option letter); writes maps.eval.

    Example: reason maps eval answers.jsonl --gold runs/c/questions.jsonl
    """
    from toolkit.maps.evaluate import score_answers

    with open_writer(out) as writer:
        writer.write(score_answers(answers, gold, rtol))


@app.command()
def train(
    data: Annotated[list[Path], typer.Option("--data", help="Folders written by `generate` (repeatable).")],
    out: Annotated[Path, typer.Option("--out", help="Directory for the trained PPM.")],
    minutes: Annotated[float, typer.Option("--minutes", min=0.0, help="Wall-clock cap of the training.")] = 20.0,
    steps: Annotated[int | None, typer.Option("--steps", min=1, help="Step cap (with --minutes: the first hit).")]
    = None,
    kind: Annotated[str, typer.Option("--kind", help="learned (Swin + GPT-2 decoder), grid (a CNN per grid edge "
                                                     "and a CTC reader per value line) or exemplar (nearest "
                                                     "neighbours, no gradient steps).")] = "learned",
    image_size: Annotated[int, typer.Option("--image-size", min=32, help="Learned PPM input size (px).")] = 256,
    embed_dim: Annotated[int, typer.Option("--embed-dim", min=4, help="Swin width of the first stage.")] = 24,
    decoder_dim: Annotated[int, typer.Option("--decoder-dim", min=8, help="GPT-2 decoder width.")] = 128,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1)] = 16,
    lr: Annotated[float | None, typer.Option("--lr", min=0.0, help="Peak learning rate (default: 1e-3 learned, "
                                                                   "2e-3 grid).")] = None,
    cache: Annotated[Path | None, typer.Option("--cache", help="Keep the encoded images here (.npz).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Use at most this many circuits.")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Grid reader: continue from the checkpoint in --out "
                                                          "(same data and --steps).")] = False,
    seed: SeedOpt = None,
):
    """Train the perception model on generated circuits; prints the loss as it goes, ends with a maps.train record.

    Example: reason maps train --data runs/train-small --data runs/train-medium --out runs/ppm --minutes 20
    """
    from toolkit.core.records import make_record

    if kind not in ("learned", "exemplar", "grid"):
        raise InputError(f"--kind {kind}: must be learned, grid or exemplar")
    if resume and kind != "grid":
        raise InputError("--resume: only the grid reader (--kind grid) trains in resumable chunks")
    if kind == "grid":
        from toolkit.core.extras import require

        require("ml", "torch")
        from toolkit.maps.grid_train import cached
        from toolkit.maps.grid_train import train as run_grid

        arrays = cached(list(data), cache, limit, console.info)
        meta = run_grid(arrays, out, steps=steps or 6000, minutes=minutes, resume=resume,
                        lr=lr or 2e-3, seed=seed_or_global(seed) or 0, log=console.info)
        meta["data"] = [str(d) for d in data]
    elif kind == "exemplar":
        from toolkit.maps.train import fit

        meta = fit(list(data), out, limit)
    else:
        from toolkit.core.extras import require

        require("ml", "torch", "transformers")
        from toolkit.maps.ppm_model import PPMSpec, TrainConfig, cached_encoding
        from toolkit.maps.ppm_model import train as run

        spec = PPMSpec(image_size=image_size, embed_dim=embed_dim, decoder_dim=decoder_dim)
        spec.check()
        encoded = cached_encoding(list(data), image_size, cache, limit)
        cfg = TrainConfig(minutes=minutes, max_steps=steps, batch_size=batch_size, lr=lr or 1e-3,
                          seed=seed_or_global(seed) or 0)
        meta = run(encoded, out, spec, cfg,
                   log=lambda e: console.info(f"step {e['step']} loss {e['loss']} ({e['seconds']} s)"))
        meta["data"] = [str(d) for d in data]
    with open_writer(None) as writer:
        writer.write(make_record("maps.train", out=str(out), kind=kind, **meta))


@app.command("import-qa")
def import_qa(
    qa: Annotated[Path, typer.Argument(help="The anchor's qa.json (list of problems).")],
    images: Annotated[Path, typer.Option("--images", help="Folder with the problems' images.")],
    out: OutOpt = None,
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
):
    """Turn the anchor's evaluation problems into maps.question records (gold parsed from LaTeX answers).

    Example: reason maps import-qa qa.json --images data/images > questions.jsonl
    """
    from toolkit.maps.qa_import import import_qa as run

    bad_lines = []
    with open_writer(out) as writer:
        for record in run(qa, images, skip_bad=skip_bad, bad=bad_lines):
            writer.write(record)
    if bad_lines:
        console.warn(f"skipped {len(bad_lines)} problem(s): {'; '.join(bad_lines[:3])}")
