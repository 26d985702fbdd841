"""`reason microtheory`: knowledge store -> distilled microtheory -> p-relevance and grounded QA."""

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

app = typer.Typer(help="From models to microtheories (arXiv 2412.17701): distil an LLM's topical knowledge "
                       "into a small set of facts that ground answers.\n\n"
                       "Example: reason microtheory show assets/microtheory/theory.jsonl",
                  no_args_is_help=True)

QuestionsOpt = Annotated[Path, typer.Option("--questions", "-q", help="Multiple-choice questions JSONL "
                                            "({id, question, options, answer, split?}).")]
SplitOpt = Annotated[str | None, typer.Option("--split", help="Use only questions with this 'split' field.")]
EmbedderOpt = Annotated[str | None, typer.Option(
    "--embedder", help="Sentence embedder: 'minilm' (packaged all-MiniLM-L6-v2, default), a local "
                       "sentence-transformers directory, or 'bow' (hashed bag of words).")]
ThresholdOpt = Annotated[float, typer.Option("--threshold", min=0.0, max=1.0,
                                             help="Cosine similarity at which two facts are duplicates.")]
VerifierOpt = Annotated[str | None, typer.Option(
    "--verifier", help="Entailment checker: an LLM URI (LLM-as-verifier) or nli:DIR, a local NLI/cross-encoder "
                       "model directory (default: the --llm backend).")]


def _llms(llm: str | None, record: Path | None, verifier: str | None, seed: int):
    """The LLM and the entailment checker, seeded: `seed` seeds local sampling and goes to servers that take one."""
    from toolkit.core.models import seed_everything
    from toolkit.microtheory.verify import make_verifier

    seed_everything(seed)
    backend = make_llm(llm, record, seed)
    if verifier and verifier.startswith("nli:"):
        return backend, make_verifier(verifier, None)
    return backend, make_verifier(None, make_llm(verifier, record, seed) if verifier else backend)


@app.command()
def store(
    questions: QuestionsOpt,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    verifier: VerifierOpt = None,
    split: SplitOpt = None,
    proofs: Annotated[int, typer.Option("--proofs", min=1, help="Candidate proofs sampled per question.")] = 3,
    temperature: Annotated[float, typer.Option("--temperature", min=0.0, help="Sampling temperature.")] = 0.7,
    prune: Annotated[bool, typer.Option("--prune/--no-prune", help="Reduce each verified proof to a minimal one "
                                        "(leave-one-out entailment checks).")] = True,
    out: OutOpt = None,
    resume: ResumeOpt = False,
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
):
    """Build the knowledge store: verified facts that entail each training question's answer.

    Example: reason microtheory store -q assets/microtheory/qa.jsonl --split train
    --llm py:toolkit.microtheory.standin:complete -o store.jsonl
    """
    from toolkit.core import console
    from toolkit.core.records import BadLines, existing_keys
    from toolkit.microtheory.data import load_questions
    from toolkit.microtheory.store import build_store

    bad = BadLines()
    qs = load_questions(questions, split=split, skip_bad=skip_bad, bad=bad)
    backend, ver = _llms(llm, record, verifier, seed_or_global(seed))
    done = existing_keys(out, lambda r: r["question_id"]) if resume else set()
    proven = total = 0
    with open_writer(out, resume) as writer:
        for entry in console.track(build_store(qs, backend, ver, proofs=proofs, temperature=temperature, prune=prune,
                                               skip=done),
                                   len(qs) - len(done), "store"):
            writer.write(entry)
            total += 1
            proven += entry["proven"]
    console.info(f"store: {proven}/{total} questions proven, {ver.calls} entailment checks")
    report_bad(bad)
    report_usage(backend)


@app.command()
def distill(
    store_path: Annotated[Path, typer.Option("--store", help="Knowledge store JSONL from 'store'.")],
    budget: Annotated[int, typer.Option("--budget", "-k", help="Number of facts K in the microtheory.")],
    strategy: Annotated[list[str] | None, typer.Option(
        "--strategy", "-s", help="ilp-full, ilp-partial, greedy, frequency (repeatable; default all; the first "
                                 "one is the microtheory).")] = None,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    verifier: VerifierOpt = None,
    embedder: EmbedderOpt = None,
    threshold: ThresholdOpt = 0.9,
    neighbors: Annotated[int, typer.Option("--neighbors", min=1,
                                           help="Embedding neighbours checked as premises in condensation.")] = 4,
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Dedup, condense by entailment and choose K facts with each optimization strategy.

    Example: reason microtheory distill --store store.jsonl -k 24 --llm py:toolkit.microtheory.standin:complete
    -o theory.jsonl
    """
    from toolkit.core import console
    from toolkit.core.errors import InputError
    from toolkit.core.records import read_records
    from toolkit.microtheory.distill import distill as run_distill
    from toolkit.microtheory.embed import load_embedder
    from toolkit.microtheory.optimize import STRATEGIES
    from toolkit.microtheory.store import ENTRY, verified_proofs

    strategies = list(dict.fromkeys(strategy or STRATEGIES))
    for s in strategies:
        if s not in STRATEGIES:
            raise InputError(f"--strategy {s}: unknown; expected one of {', '.join(STRATEGIES)}")
    if budget < 1:
        raise InputError(f"--budget {budget}: must be at least 1")
    entries = list(read_records(store_path, types=[ENTRY], required=("question_id", "proofs")))
    raw = {t for e in entries for facts in verified_proofs(e) for t in facts}
    if raw and budget > len(raw):
        raise InputError(f"--budget {budget}: larger than the knowledge store in {store_path} ({len(raw)} distinct "
                         f"facts)")
    backend, ver = _llms(llm, record, verifier, seed_or_global(seed))
    timings: dict[str, float] = {}
    records = run_distill(entries, load_embedder(embedder), ver, budget=budget, strategies=strategies,
                          threshold=threshold, neighbors=neighbors, source=str(store_path), timings=timings)
    with open_writer(out) as writer:
        writer.write_all(records)
    summary = next(r for r in records if r["type"] == "microtheory.summary")
    console.info(f"distill: {summary['raw_facts']} facts -> {summary['after_dedup']} after dedup -> "
                 f"{summary['after_condense']} after condensation; K={budget}")
    for r in records:
        if r["type"] == "microtheory.selection":
            console.info(f"  {r['strategy']:<12} full {r['full']}/{r['questions']}  partial "
                         f"{r['partial']}/{r['questions']}  ({timings[r['strategy']]:.3f} s)")
    report_usage(backend)


@app.command()
def coverage(
    theory: Annotated[Path, typer.Option("--theory", "-t", help="Theory file from 'distill'.")],
    questions: QuestionsOpt,
    p: Annotated[float, typer.Option("--p", min=0.0, max=1.0, help="Fraction of a proof's facts that must be "
                                     "in the microtheory.")] = 0.5,
    sizes: Annotated[str | None, typer.Option("--sizes", help="Comma-separated training-set sizes for the "
                                              "coverage-vs-data curve, e.g. 5,10,20,40.")] = None,
    strategy: Annotated[str | None, typer.Option("--strategy", help="Selection to evaluate (default: the "
                                                 "theory's).")] = None,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    verifier: VerifierOpt = None,
    split: SplitOpt = None,
    proofs: Annotated[int, typer.Option("--proofs", min=1, help="Proofs sampled per question.")] = 3,
    temperature: Annotated[float, typer.Option("--temperature", min=0.0)] = 0.7,
    embedder: EmbedderOpt = None,
    threshold: ThresholdOpt = 0.9,
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """p-relevance of the microtheory on (held-out) questions, and coverage vs training-set size.

    --questions takes a QA file (proofs are generated with --llm) or a store file from 'store'.
    Example: reason microtheory coverage -t theory.jsonl -q assets/microtheory/qa.jsonl --split test --p 1
    --sizes 5,10,20,40 --llm replay:assets/microtheory/replay.jsonl
    """
    from toolkit.core.errors import InputError
    from toolkit.core.records import make_record, read_records
    from toolkit.microtheory.data import load_questions
    from toolkit.microtheory.embed import load_embedder
    from toolkit.microtheory.relevance import curve, match_facts, p_relevance
    from toolkit.microtheory.store import ENTRY, build_store, verified_proofs
    from toolkit.microtheory.theory import load_theory

    seed = seed_or_global(seed)
    th = load_theory(theory, strategy)
    first = next(iter(read_records(questions)), {})
    if first.get("type") == ENTRY:
        entries = [e for e in read_records(questions, types=[ENTRY]) if split is None or e.get("split") == split]
    else:
        qs = load_questions(questions, split=split)
        backend, ver = _llms(llm, record, verifier, seed)
        entries = list(build_store(qs, backend, ver, proofs=proofs, temperature=temperature))
    texts = [t for e in entries for facts in verified_proofs(e) for t in facts]
    mapping = match_facts(texts, th, load_embedder(embedder), threshold)
    chosen = {f["fact_id"] for f in th.facts}
    rel = p_relevance(entries, mapping, chosen, p)
    with open_writer(out) as writer:
        for qid, fr in rel["fractions"].items():
            writer.write(make_record("microtheory.relevance", 1, question_id=qid, fraction=round(fr, 4),
                                     relevant=bool(fr > 0 and fr >= p - 1e-9)))
        points = []
        if sizes:
            try:
                ns = [int(x) for x in sizes.split(",") if x.strip()]
            except ValueError:
                raise InputError(f"--sizes {sizes}: expected comma-separated integers") from None
            if not th.proofsets:
                raise InputError(f"{theory}: has no proofsets; the curve needs a theory file from 'distill'")
            budget = int(th.selections.get(th.strategy, {}).get("budget", len(th.facts)))
            points = curve(th, entries, mapping, p=p, sizes=ns, budget=budget, strategy=th.strategy, seed=seed)
            for pt in points:
                writer.write(make_record("microtheory.curve_point", 1, strategy=th.strategy, p=p, **pt))
        writer.write(make_record("microtheory.coverage", 1, theory=str(theory), strategy=th.strategy,
                                 facts=len(th.facts), **{k: v for k, v in rel.items() if k != "fractions"}))
    from toolkit.core import console

    console.info(f"p-relevance (p={p:g}) of {th.strategy} theory ({len(th.facts)} facts): {rel['relevant']}/"
                 f"{rel['proven']} = {rel['p_relevance']:.3f}")
    for pt in points:
        console.info(f"  n={pt['train_questions']:>3}  p-relevance {pt['p_relevance']:.3f}")


@app.command()
def ground(
    corpus: Annotated[Path, typer.Option("--corpus", "-c", help="Corpus JSONL ({id?, text}).")],
    questions: QuestionsOpt,
    theory: Annotated[Path | None, typer.Option("--theory", "-t", help="Theory file; when given, both "
                                                "conditions (corpus, corpus+theory) are run.")] = None,
    strategy: Annotated[str | None, typer.Option("--strategy", help="Selection of the theory file to add.")] = None,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    verifier: VerifierOpt = None,
    split: SplitOpt = None,
    k: Annotated[int, typer.Option("--k", min=1, help="Sentences retrieved (BM25) per hypothesis/premise.")] = 5,
    samples: Annotated[int, typer.Option("--samples", min=1, help="Decompositions sampled per option.")] = 1,
    out: OutOpt = None,
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
):
    """Grounded QA: prove each option from retrieved corpus sentences, with and without the microtheory.

    Example: reason microtheory ground -c assets/microtheory/corpus.jsonl -q assets/microtheory/qa.jsonl
    --split test -t theory.jsonl --llm replay:assets/microtheory/replay.jsonl
    """
    from toolkit.core import console
    from toolkit.core.records import BadLines
    from toolkit.microtheory.data import load_corpus, load_questions
    from toolkit.microtheory.ground import ground_conditions
    from toolkit.microtheory.theory import load_theory

    bad = BadLines()
    docs = load_corpus(corpus, skip_bad=skip_bad, bad=bad)
    qs = load_questions(questions, split=split, skip_bad=skip_bad, bad=bad)
    theory_texts = load_theory(theory, strategy).texts if theory is not None else None
    backend, ver = _llms(llm, record, verifier, seed_or_global(seed))
    summaries = {}
    with open_writer(out) as writer:
        for rec in ground_conditions(qs, [d["text"] for d in docs], theory_texts, backend, ver, k=k,
                                     samples=samples, track=console.track):
            writer.write(rec)
            if rec["type"] == "microtheory.grounding_summary":
                summaries[rec["condition"]] = rec
    for name, s in summaries.items():
        console.info(f"{name:<14} grounded {s['grounded']}/{s['questions']} ({s['grounded_rate']:.3f}), "
                     f"grounded accuracy {s['grounded_accuracy']:.3f}, precision {s['grounded_precision']:.3f}")
    report_bad(bad)
    report_usage(backend)


@app.command()
def show(
    theory: Annotated[Path, typer.Argument(help="Theory file from 'distill'.")],
    strategy: Annotated[str | None, typer.Option("--strategy", help="Selection to show (default: the "
                                                 "theory's).")] = None,
):
    """Print the microtheory as a readable list: each fact with its support (questions, paraphrases).

    Example: reason microtheory show assets/microtheory/theory.jsonl --strategy frequency
    """
    from rich.table import Table

    from toolkit.core import console
    from toolkit.microtheory.theory import load_theory

    th = load_theory(theory, strategy)
    sel = th.selections.get(th.strategy, {})
    title = f"microtheory ({th.strategy}, {len(th.facts)} facts)"
    if sel:
        title += f": fully covers {sel['full']}/{sel['questions']} training questions"
    table = Table(title=title)
    table.add_column("#", justify="right")
    table.add_column("fact")
    table.add_column("questions", justify="right")
    table.add_column("support")
    for i, f in enumerate(th.facts, start=1):
        rec = th.all_facts.get(f["fact_id"], {})
        qids = rec.get("questions", [])
        extra = [m for m in rec.get("members", []) if m != f["text"]]
        support = ", ".join(qids[:6]) + (" ..." if len(qids) > 6 else "")
        if extra:
            support += f"  (+{len(extra)} paraphrase{'s' if len(extra) > 1 else ''})"
        table.add_row(str(i), f["text"], str(len(qids)), support)
    console.console.print(table)
