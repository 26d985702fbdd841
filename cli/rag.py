"""`reason rag`: DRAG / IterDRAG over any LLM, budgeted inference-scaling sweeps, the allocation model."""

from __future__ import annotations

import json
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

app = typer.Typer(help="Inference scaling for long-context RAG (arXiv 2410.04343): DRAG and IterDRAG, budgeted "
                       "sweeps of documents k, demonstrations m and iterations n, and the computation allocation "
                       "model.\n\nExample: reason rag world --seed 1000 --out w && reason rag run --method iterdrag "
                       "-k 4 -n 3 --questions w/test.jsonl --index w/idx --llm hf:assets/rag/reader",
                  no_args_is_help=True)

QuestionsOpt = Annotated[Path, typer.Option("--questions", help="rag.question JSONL ({id, question, answers, ...}).")]
IndexOpt = Annotated[Path, typer.Option("--index", help="Index directory from `reason rag index`.")]
DemosOpt = Annotated[Path | None, typer.Option("--demos", help="rag.demo JSONL from `reason rag demos`.")]
MaxContextOpt = Annotated[int | None, typer.Option(
    "--max-context", min=1, help="Largest prompt (tokens) of one call; over it the configuration is infeasible "
                                 "(hf: the model's max_position_embeddings by default).")]
ThetaShiftOpt = Annotated[str, typer.Option(
    "--theta-shift", help="What the allocation model adds to (k, m, n) before the log: paper (0.01 each, as in "
                          "the paper) or one (log(1+k), log(1+m), log n, the earlier form).")]


def _index(path: Path, corpus: Path | None = None):
    from toolkit.rag import index as ix

    expect = None
    if corpus is not None:
        from toolkit.rag.data import load_corpus

        expect = ix.corpus_hash(load_corpus(corpus))
    return ix.load(path, expect_sha=expect)


def _max_context(llm, given: int | None) -> int | None:
    if given is not None:
        return given
    model = getattr(llm, "model", None) or getattr(getattr(llm, "inner", None), "model", None)
    return getattr(getattr(model, "config", None), "max_position_embeddings", None)


@app.command()
def data(
    fmt: Annotated[str, typer.Option("--format", help="hotpotqa, 2wiki, musique, bamboogle or jsonl.")],
    input: Annotated[Path, typer.Option("--input", help="The dataset file (JSON array, JSONL or Bamboogle CSV).")],
    out: OutOpt = None,
    corpus_out: Annotated[Path | None, typer.Option("--corpus-out", help="Write the contexts' documents here.")] = None,
    corpus: Annotated[Path | None, typer.Option("--corpus", help="Check or convert a corpus (JSONL or DPR TSV) "
                                                "and write it to --corpus-out.")] = None,
    skip_bad: SkipBadOpt = False,
):
    """Convert a QA dataset to rag.question records (and its contexts to a rag.doc corpus).

    Example: reason rag data --format musique --input musique_dev.jsonl -o qa.jsonl --corpus-out corpus.jsonl
    """
    from toolkit.core.records import BadLines, make_record
    from toolkit.rag.data import load_corpus, load_questions

    bad = BadLines()
    questions, docs = load_questions(input, fmt, skip_bad=skip_bad, bad=bad)
    if corpus is not None:
        docs = load_corpus(corpus, skip_bad=skip_bad, bad=bad)
    with open_writer(out) as w:
        for q in questions:
            w.write(make_record("rag.question", 1, **q))
    if corpus_out is not None:
        with open_writer(corpus_out) as w:
            for d in docs:
                w.write(make_record("rag.doc", 1, **d))
    report_bad(bad)


@app.command()
def index(
    corpus: Annotated[Path, typer.Option("--corpus", help="Corpus: rag.doc JSONL or DPR TSV.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Index directory to write.")],
    retriever: Annotated[str, typer.Option("--retriever", help="bm25, dense (MiniLM) or hybrid (RRF).")] = "bm25",
    skip_bad: SkipBadOpt = False,
):
    """Index a corpus for retrieval; the index stores the corpus SHA-256.

    Example: reason rag index --corpus corpus.jsonl --retriever hybrid --out idx/
    """
    from toolkit.core import console
    from toolkit.core.records import BadLines
    from toolkit.rag import index as ix
    from toolkit.rag.data import load_corpus

    bad = BadLines()
    docs = load_corpus(corpus, skip_bad=skip_bad, bad=bad)
    built = ix.build(docs, retriever)
    ix.save(built, out)
    report_bad(bad)
    console.info(f"indexed {len(docs)} documents ({retriever}) -> {out}")


@app.command()
def demos(
    questions: QuestionsOpt,
    index: IndexOpt,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    k: Annotated[int, typer.Option("-k", min=1, help="Documents per retrieval (prompted demonstrations).")] = 4,
    n: Annotated[int, typer.Option("-n", min=1, help="Follow-ups allowed (prompted demonstrations).")] = 4,
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Demonstrations: chains from gold decompositions, or (with --llm) IterDRAG chains kept when right.

    Example: reason rag demos --questions w/train.jsonl --index w/idx -o demos.jsonl
    """
    from toolkit.rag.pipeline import gold_demo, prompted_demos, read_questions

    qs = read_questions(questions)
    if llm:
        backend = make_llm(llm, record, seed_or_global(seed))
        records = prompted_demos(backend, _index(index), qs, k, n)
        report_usage(backend)
    else:
        records = [gold_demo(q) for q in qs]
    with open_writer(out) as w:
        w.write_all(records)


@app.command()
def run(
    questions: QuestionsOpt,
    index: IndexOpt,
    method: Annotated[str, typer.Option("--method", help="zs, ms, rag, drag or iterdrag.")] = "iterdrag",
    k: Annotated[int, typer.Option("-k", min=0, help="Documents retrieved per query.")] = 8,
    m: Annotated[int, typer.Option("-m", min=0, help="Demonstrations (ms, drag, iterdrag).")] = 0,
    n: Annotated[int, typer.Option("-n", min=1, help="IterDRAG follow-up sub-queries before the forced answer.")] = 3,
    demos: DemosOpt = None,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    workers: Annotated[int, typer.Option("--workers", "-j", min=1, help="Concurrent calls (backends that do not "
                                         "batch, e.g. a server).")] = 1,
    max_context: MaxContextOpt = None,
    batch: Annotated[int, typer.Option("--batch", min=1, help="Questions run together (one batched call per "
                                       "IterDRAG step).")] = 64,
    out: OutOpt = None,
    resume: ResumeOpt = False,
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
):
    """Answer questions with one method and configuration -> rag.answer records.

    Example: reason rag run --method iterdrag -k 4 -n 3 --questions w/test.jsonl --index w/idx
    --llm hf:assets/rag/reader -o answers.jsonl
    """
    from toolkit.core.errors import InputError
    from toolkit.core.records import BadLines, existing_keys
    from toolkit.rag.index import check_questions
    from toolkit.rag.methods import METHODS, Config, Runner
    from toolkit.rag.pipeline import read_demos, read_questions

    if method not in METHODS:
        raise InputError(f"--method {method}: expected one of {', '.join(METHODS)}")
    bad = BadLines()
    qs = read_questions(questions, skip_bad=skip_bad, bad=bad)
    idx = _index(index)
    check_questions(idx, qs, str(questions))
    cfg = Config(method, k, m, n).normalized()
    done = existing_keys(out, lambda r: (r["id"], r["config"])) if resume else set()
    todo = [q for q in qs if (q["id"], cfg.key()) not in done]
    backend = make_llm(llm, record, seed_or_global(seed))
    runner = Runner(backend, idx, read_demos(demos), max_context=_max_context(backend, max_context),
                    seed=seed_or_global(seed), workers=workers)
    with open_writer(out, resume) as w:
        for lo in range(0, len(todo), batch):
            w.write_all(runner.run(todo[lo: lo + batch], cfg))
    report_bad(bad)
    report_usage(backend)


@app.command("eval")
def evaluate(
    answers: Annotated[Path, typer.Argument(help="rag.answer JSONL ('-' for stdin).")],
    gold: Annotated[Path, typer.Option("--gold", help="The rag.question JSONL with the answers.")],
    out: OutOpt = None,
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
):
    """Score answers: EM, F1 and Acc (gold alias contained) with 95% bootstrap intervals, per configuration.

    Example: reason rag run ... | reason rag eval - --gold w/test.jsonl
    """
    from toolkit.core.records import BadLines, read_records
    from toolkit.rag.evaluate import score_answers
    from toolkit.rag.pipeline import read_questions

    bad = BadLines()
    gq = {q["id"]: q for q in read_questions(gold)}
    rows = list(read_records(answers, types=["rag.answer"], required=("id", "prediction"), skip_bad=skip_bad,
                             bad=bad))
    with open_writer(out) as w:
        w.write_all(score_answers(rows, gq, str(answers), seed=seed_or_global(seed)))
    report_bad(bad)


@app.command()
def sweep(
    questions: Annotated[list[Path], typer.Option("--questions", help="rag.question JSONL; repeat it with --index "
                                                  "(and --demos) to pool several corpora, e.g. worlds.")],
    index: Annotated[list[Path], typer.Option("--index", help="Index directory, one per --questions.")],
    grid: Annotated[str, typer.Option("--grid", help="k, m, n values: 'k=0,1,2,4,8,16;m=0,1,2,4;n=1,2,3,4'.")]
    = "k=0,1,2,4,8,16;m=0,1,2,4;n=1,2,3,4",
    methods: Annotated[str, typer.Option("--methods", help="Comma-separated methods.")] = "rag,drag,iterdrag",
    budgets: Annotated[str, typer.Option("--budgets", help="Effective-length budgets: '1k,2k,4k,8k'.")]
    = "1k,2k,4k,8k",
    demos: Annotated[list[Path] | None, typer.Option("--demos", help="rag.demo JSONL, one per --questions.")] = None,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    max_context: MaxContextOpt = None,
    workers: Annotated[int, typer.Option("--workers", "-j", min=1, help="Concurrent calls.")] = 1,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only estimate each configuration's cost (no calls).")]
    = False,
    anchors: Annotated[bool, typer.Option("--anchors/--no-anchors", help="Add zs, rag k=1 and ms m=1 (the "
                                          "allocation model's anchors).")] = True,
    out: OutOpt = None,
    resume: ResumeOpt = False,
    seed: SeedOpt = None,
):
    """Run every configuration of a grid: rag.config (scores, mean cost, feasible) and rag.optimum per budget.

    Example: reason rag sweep --questions w/test.jsonl --index w/idx --demos w/demos.jsonl --llm hf:assets/rag/reader
    --grid "k=1,2,4,8;m=0,1;n=1,2,3" --budgets 1k,2k,4k,8k -o sweep.jsonl
    """
    from toolkit.core.errors import InputError
    from toolkit.core.records import existing_keys, read_records
    from toolkit.rag.index import check_questions
    from toolkit.rag.pipeline import read_demos, read_questions
    from toolkit.rag.sweep import Part, parse_budgets, parse_grid, parse_methods, run_sweep

    g, ms, bs = parse_grid(grid), parse_methods(methods), parse_budgets(budgets)
    demos = demos or []
    if len(questions) != len(index) or (demos and len(demos) != len(questions)):
        raise InputError("sweep: give one --index (and one --demos, if any) per --questions")
    parts = []
    for i, (qp, ip) in enumerate(zip(questions, index, strict=True)):
        qs, idx = read_questions(qp), _index(ip)
        check_questions(idx, qs, str(qp))
        parts.append(Part(qs, idx, read_demos(demos[i]) if demos else []))
    done = existing_keys(out, lambda r: r["config"] if r.get("type") == "rag.config" else None) if resume else set()
    previous = [r for r in read_records(out) if r.get("type") == "rag.config"] if resume and done else []
    backend = None if dry_run else make_llm(llm, record, seed_or_global(seed))
    with open_writer(out, resume) as w:
        for rec in run_sweep(parts, g, ms, bs, backend, done=done - {None}, previous=previous,
                             max_context=_max_context(backend, max_context), seed=seed_or_global(seed),
                             dry_run=dry_run, anchors=anchors, workers=workers):
            w.write(rec)
    if backend is not None:
        report_usage(backend)


@app.command()
def fit(
    sweep_file: Annotated[Path, typer.Option("--sweep", help="A sweep's JSONL (rag.config records).")],
    fit_on: Annotated[str, typer.Option("--fit-on", help="split:F (random share of configurations), cost<=L "
                                        "or task!=T (leave one task out).")] = "split:1",
    robust: Annotated[bool, typer.Option("--robust", help="soft_l1 loss instead of plain least squares.")] = False,
    metric: Annotated[str, typer.Option("--metric", help="acc, em or f1.")] = "acc",
    theta_shift: ThetaShiftOpt = "paper",
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Fit the computation allocation model to a sweep -> rag.cam (parameters, R2/MSE on fit and held out).

    Example: reason rag fit --sweep sweep.jsonl --fit-on split:0.5 -o cam.json
    """
    from toolkit.core.records import dumps, read_records
    from toolkit.rag.cam import fit_records, parse_shift

    shift = parse_shift(theta_shift)
    records = [r for r in read_records(sweep_file) if r.get("type") == "rag.config"]
    cam = fit_records(records, fit_on, seed=seed_or_global(seed), robust=robust, metric=metric, shift=shift)
    if out is None:
        print(dumps(cam))
    else:
        out.write_text(json.dumps(cam, indent=1) + "\n")


@app.command()
def plan(
    cam: Annotated[Path, typer.Option("--cam", help="rag.cam JSON from `reason rag fit`.")],
    budget: Annotated[str, typer.Option("--budget", help="Effective-length budget, e.g. 16k.")],
    task: Annotated[str | None, typer.Option("--task", help="The task to plan for (default: every task).")] = None,
    grid: Annotated[str | None, typer.Option("--grid", help="Extra candidates (costs estimated), e.g. "
                                             "'k=16,32;m=0,2;n=1,2'.")] = None,
    methods: Annotated[str, typer.Option("--methods", help="Methods of the extra candidates.")] = "drag,iterdrag",
    out: OutOpt = None,
):
    """The configuration the model predicts best within a budget (measured costs, else log-linear estimates),
    checked against the sweep: its measured score, the best measured configuration within the budget, the gap.

    Example: reason rag plan --cam cam.json --budget 16k
    """
    from toolkit.core import console
    from toolkit.core.records import make_record
    from toolkit.rag.cam import check_plan, load_cam, plan_candidates
    from toolkit.rag.cam import plan as plan_one
    from toolkit.rag.sweep import parse_budget, parse_grid, parse_methods

    model = load_cam(cam)
    limit = parse_budget(budget)
    extra = (parse_grid(grid), parse_methods(methods)) if grid else None
    with open_writer(out) as w:
        for t in [task] if task else list(model["info"]):
            best = plan_one(model, limit, t, plan_candidates(model, t, extra))
            check = check_plan(model, best, limit, t)
            w.write(make_record("rag.plan", 1, budget=limit, task=t, **(best or {"config": None}), **check))
            if check.get("gap", 0) > 0.05:
                console.warn(f"plan {t} at {limit}: the pick {best['config']} measured {check['measured_score']}, "
                             f"below the sweep's best within the budget, {check['best_measured']} "
                             f"({check['best_measured_score']})")


@app.command()
def world(
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the world's files.")],
    per_hop: Annotated[int, typer.Option("--per-hop", min=1, help="Test questions per hop count.")] = 200,
    demo_per_hop: Annotated[int, typer.Option("--demo-per-hop", min=1, help="Demo-pool questions per hop.")] = 50,
    max_hops: Annotated[int, typer.Option("--max-hops", min=1, max=4, help="Largest hop count.")] = 4,
    no_index: Annotated[bool, typer.Option("--no-index", help="Skip the BM25 index.")] = False,
    seed: SeedOpt = None,
):
    """Generate a synthetic multi-hop world: corpus.jsonl, test.jsonl, train.jsonl (demo pool), demos.jsonl, idx/.

    Example: reason rag world --seed 1000 --out w
    """
    from toolkit.core import console
    from toolkit.core.records import make_record
    from toolkit.rag import index as ix
    from toolkit.rag import world as wmod
    from toolkit.rag.pipeline import gold_demo

    s = seed_or_global(seed)
    w = wmod.generate(s, per_hop=per_hop, demo_per_hop=demo_per_hop, max_hops=max_hops)
    out.mkdir(parents=True, exist_ok=True)
    docs = [d.record() for d in w.docs]
    with open_writer(out / "corpus.jsonl") as fh:
        fh.write_all(make_record("rag.doc", 1, **d) for d in docs)
    for name, split in (("test.jsonl", "test"), ("train.jsonl", "demo")):
        with open_writer(out / name) as fh:
            fh.write_all(make_record("rag.question", 1, **q.record(), task=f"{q.hops}hop")
                         for q in w.questions if q.split == split)
    with open_writer(out / "demos.jsonl") as fh:
        fh.write_all(gold_demo(q.record()) for q in w.questions if q.split == "demo")
    if not no_index:
        ix.save(ix.build(docs, "bm25"), out / "idx")
    console.info(f"world {s}: {len(docs)} documents, {len(w.questions)} questions -> {out}")


@app.command()
def train(
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the reader (config, weights, tokenizer).")],
    steps: Annotated[int, typer.Option("--steps", min=1, help="Optimizer steps; the curriculum and learning rate "
                                       "follow the share done.")] = 3000,
    minutes: Annotated[float | None, typer.Option("--minutes", min=0.01, help="Cap on the summed training time "
                                                  "(the run pauses there, resumable).")] = None,
    chunk_minutes: Annotated[float | None, typer.Option("--chunk-minutes", min=0.01, help="Stop after this many "
                                                        "minutes and leave a checkpoint for --resume.")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue from OUT/checkpoint.pt (same --steps, "
                                         "--seed).")] = False,
    init_from: Annotated[Path | None, typer.Option("--init-from", help="Start from this reader's weights "
                                                   "(curriculum `warm`).")] = None,
    curriculum: Annotated[str | None, typer.Option("--curriculum", help="scratch, warm or subject (default: warm "
                                                   "with --init-from, else scratch).")] = None,
    mark: Annotated[bool, typer.Option("--mark", help="Mark the question's words in every prompt's documents "
                                       "(prompts.mark_query_terms); the reader must then be run with them marked.")
                    ] = False,
    seed: SeedOpt = None,
):
    """Train the tiny reader on training worlds (seeds 0-99) for a budget of optimizer steps, in chunks if asked.

    Example: reason rag train --out assets/rag/reader --steps 3000
    (chunks: --steps 3000 --chunk-minutes 10, then the same with --resume until it reports complete)
    """
    from toolkit.core import console
    from toolkit.rag.train import train as run_training

    summary = run_training(out, steps=steps, minutes=minutes, seed=seed_or_global(seed), chunk_minutes=chunk_minutes,
                           resume=resume, init_from=init_from, curriculum=curriculum, mark=mark)
    state = "complete" if summary["complete"] else "paused: continue with --resume"
    console.info(f"trained {summary['steps']} of {steps} steps in {summary['train_seconds']} s "
                 f"({summary['cpu_seconds']} CPU s) -> {out} ({state})")


@app.command()
def claims(
    sweep_file: Annotated[Path, typer.Option("--sweep", help="A sweep's JSONL (rag.config records).")],
    budgets: Annotated[str, typer.Option("--budgets", help="Budgets of the allocation check.")] = "1k,2k,4k,8k",
    claim_budget: Annotated[str, typer.Option("--claim-budget", help="Budget of IterDRAG vs RAG.")] = "4k",
    theta_shift: ThetaShiftOpt = "paper",
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """The claims from a sweep: IterDRAG vs RAG per task (paired bootstrap), the allocation model's picks.

    Example: reason rag claims --sweep assets/rag/sweep-1000.jsonl
    """
    from toolkit.core.records import read_records
    from toolkit.rag.cam import parse_shift
    from toolkit.rag.claims import claims as measure
    from toolkit.rag.sweep import parse_budget, parse_budgets

    shift = parse_shift(theta_shift)
    records = [r for r in read_records(sweep_file) if r.get("type") == "rag.config"]
    with open_writer(out) as w:
        w.write_all(measure(records, budgets=parse_budgets(budgets), claim_budget=parse_budget(claim_budget),
                            seed=seed_or_global(seed), shift=shift))


@app.command()
def recall(
    questions: QuestionsOpt,
    index: IndexOpt,
    ks: Annotated[str, typer.Option("-k", help="Comma-separated k values.")] = "1,2,4,8,16",
    out: OutOpt = None,
):
    """Recall@k of the gold documents per hop count, for the question and for its gold sub-questions.

    Example: reason rag recall --questions w/test.jsonl --index w/idx -k 1,4,16
    """
    from toolkit.core.errors import InputError
    from toolkit.rag.evaluate import recall_records
    from toolkit.rag.index import check_questions
    from toolkit.rag.pipeline import read_questions

    try:
        values = sorted({int(x) for x in ks.split(",") if x.strip()})
    except ValueError:
        raise InputError(f"-k {ks}: expected comma-separated positive integers") from None
    if not values or values[0] < 1:
        raise InputError(f"-k {ks}: expected comma-separated positive integers")
    qs = read_questions(questions)
    idx = _index(index)
    check_questions(idx, qs, str(questions))
    with open_writer(out) as w:
        w.write_all(recall_records(idx, qs, values))
