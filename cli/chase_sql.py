"""`reason chase-sql`: CHASE-SQL text-to-SQL — value index, generators, fixer, selector, evaluation."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import (
    LLMOpt,
    OutOpt,
    RayOpt,
    RecordOpt,
    ResumeOpt,
    SeedOpt,
    SkipBadOpt,
    WorkersOpt,
    make_llm,
    open_writer,
    report_bad,
    report_usage,
    seed_or_global,
)

app = typer.Typer(help="CHASE-SQL text-to-SQL: value retrieval, three generators, query fixer, pairwise selector, "
                       "BIRD/Spider execution accuracy.\n\n"
                       "Example: reason chase-sql run --data assets/chase_sql/demo "
                       "--llm replay:assets/chase_sql/replay-dev.jsonl -o p.jsonl",
                  no_args_is_help=True)

DbOpt = Annotated[Path, typer.Option("--db", help="SQLite database file.")]
CacheOpt = Annotated[Path | None, typer.Option("--cache-dir", help="Keep value indexes here, not next to the DB.")]
PerGenOpt = Annotated[int, typer.Option("--per-generator", min=1, help="Candidates per generator (pool = 3 x this).")]
GensOpt = Annotated[str, typer.Option("--generators", help="Comma list of generators: dc, qp, os.")]
TempOpt = Annotated[float, typer.Option("--temperature", help="Sampling temperature of the generators.")]
FixOpt = Annotated[int, typer.Option("--fix-attempts", min=0, help="Query fixer attempts per candidate (0: off).")]
FixSecondsOpt = Annotated[float, typer.Option(
    "--fix-seconds", min=0, help="Wall-clock budget of the query fixer per question; no attempt starts after it "
                                 "(0: unbounded).")]
MaxTokensOpt = Annotated[int, typer.Option(
    "--max-tokens", min=16, help="Tokens each generator and fixer answer may take (a per-stage budget).")]
NoValuesOpt = Annotated[bool, typer.Option("--no-values", help="Skip keyword extraction and value retrieval.")]
SelOpt = Annotated[str, typer.Option(
    "--selector", help="'llm' (prompted, same --llm), 'llm:URI' (another backend), 'lora:ADAPTER_DIR' (trained "
                       "with train-selector), 'model:DIR' (trained with train-selector --classifier) or "
                       "'self-consistency' (majority by result).")]
OneOrderOpt = Annotated[bool, typer.Option("--one-order", help="Ask the selector each pair in one order only.")]
TimeoutOpt = Annotated[float, typer.Option("--timeout", help="Seconds each query may run.")]
RowCapOpt = Annotated[int, typer.Option("--row-cap", help="Rows fetched per query at most.")]
DialectOpt = Annotated[str | None, typer.Option("--dialect", help="Also give the chosen SQL in this sqlglot dialect.")]
EmbedOpt = Annotated[bool, typer.Option("--embed", help="Also re-rank values by MiniLM embeddings (ml extra).")]
ConstrainOpt = Annotated[bool, typer.Option(
    "--schema-constraint/--no-schema-constraint",
    help="With a generator trained here (hf:), let its SQL name only tables, columns and aliases of the prompt's "
         "schema (constrained decoding); other backends are unaffected.")]


BeamsOpt = Annotated[int, typer.Option(
    "--beams", min=1, help="With the schema constraint, greedy SQL answers come from a beam of this many "
                           "hypotheses (one that reaches a dead end is dropped); 1: plain greedy.")]


def _constrain(backend, on: bool, beams: int):
    from toolkit.chase_sql.schema_constraint import attach

    attach(backend, on, beams)
    return backend


def _config(per_generator, generators, temperature, fix_attempts, no_values, selector, one_order, timeout, row_cap,
            dialect, cache_dir, fix_seconds=120.0, max_tokens=1024):
    from toolkit.chase_sql.generators import GENERATORS, GenConfig
    from toolkit.chase_sql.pipeline import PipelineConfig
    from toolkit.core.errors import InputError

    gens = tuple(g.strip() for g in generators.split(",") if g.strip())
    bad = [g for g in gens if g not in GENERATORS]
    if bad or not gens:
        raise InputError(f"--generators {generators}: expected a comma list of {', '.join(GENERATORS)}")
    return PipelineConfig(
        gen=GenConfig(per_generator=per_generator, generators=gens, temperature=temperature, max_tokens=max_tokens),
        fix_attempts=fix_attempts, fix_seconds=fix_seconds or None, use_values=not no_values,
        both_orders=not one_order,
        selection="self-consistency" if selector == "self-consistency" else "tournament",
        timeout=timeout, row_cap=row_cap, dialect=dialect, cache_dir=cache_dir)


def _embedder(embed: bool):
    if not embed:
        return None
    from toolkit.core.minilm import minilm_embedder

    return minilm_embedder()


@app.command()
def index(
    db: DbOpt,
    cache_dir: CacheOpt = None,
    num_perm: Annotated[int, typer.Option("--num-perm", help="MinHash permutations.")] = 64,
    ngram: Annotated[int, typer.Option("--ngram", help="Character n-gram size.")] = 3,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even when the cache is up to date.")] = False,
    lookup: Annotated[list[str] | None, typer.Option("--lookup", help="Also look up these keywords.")] = None,
):
    """Build (or refresh) the MinHash LSH value index stored next to a database.

    Example: reason chase-sql index --db assets/chase_sql/demo/dev_databases/library/library.sqlite --lookup Dostoyevski
    """
    from toolkit.chase_sql.values import build_index, index_dir
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.core.records import make_record

    require("sql")
    if not db.is_file():
        raise InputError(f"{db}: no such database file")
    idx = build_index(db, cache_dir=cache_dir, num_perm=num_perm, ngram=ngram, force=force)
    with open_writer(None) as writer:
        writer.write(make_record("sql.index", db=str(db), index=str(index_dir(db, cache_dir)),
                                 n_values=len(idx.entries), rehashed=idx.rehashed, seconds=round(idx.seconds, 4)))
        for m in idx.lookup(lookup or []):
            writer.write(make_record("sql.value", **m.to_json()))


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question in natural language.")],
    db: DbOpt,
    evidence: Annotated[str, typer.Option("--evidence", help="Hint / external knowledge (BIRD evidence).")] = "",
    llm: LLMOpt = None,
    record: RecordOpt = None,
    seed: SeedOpt = None,
    per_generator: PerGenOpt = 7,
    generators: GensOpt = "dc,qp,os",
    temperature: TempOpt = 0.8,
    fix_attempts: FixOpt = 3,
    fix_seconds: FixSecondsOpt = 120.0,
    max_tokens: MaxTokensOpt = 1024,
    no_values: NoValuesOpt = False,
    selector: SelOpt = "llm",
    one_order: OneOrderOpt = False,
    timeout: TimeoutOpt = 10.0,
    row_cap: RowCapOpt = 10_000,
    dialect: DialectOpt = None,
    cache_dir: CacheOpt = None,
    embed: EmbedOpt = False,
    schema_constraint: ConstrainOpt = True,
    beams: BeamsOpt = 4,
):
    """Answer one question: print the chosen SQL and its result table (stderr); the record goes to stdout.

    Example: reason chase-sql ask --db shop.sqlite "How many orders came from Zurich?" --llm openai:qwen@http://localhost:8000/v1
    """
    from toolkit.chase_sql.pipeline import Resources, answer
    from toolkit.chase_sql.selectors import make_selector
    from toolkit.chase_sql.show import show_answer
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require

    require("sql")
    if not db.is_file():
        raise InputError(f"{db}: no such database file")
    cfg = _config(per_generator, generators, temperature, fix_attempts, no_values, selector, one_order, timeout,
                  row_cap, dialect, cache_dir, fix_seconds, max_tokens)
    backend = _constrain(make_llm(llm, record), schema_constraint, beams)
    res = Resources(cfg, embed=_embedder(embed))
    rec = answer(backend, make_selector(selector, backend), res, db_path=db, question=question, evidence=evidence,
                 seed=seed_or_global(seed), db_id=db.stem)
    with open_writer(None) as writer:
        writer.write(rec)
    show_answer(rec, res.executor.run(db, rec["sql"]))
    report_usage(backend)


def _run_job(job: dict) -> tuple[dict, list[dict]]:
    """One question (module level so worker processes can run it): its record and, with --record, its exchanges."""
    from toolkit.chase_sql.pipeline import Resources, answer
    from toolkit.chase_sql.selectors import make_selector
    from toolkit.core.llm import CollectingBackend, from_uri

    backend = _constrain(from_uri(job["llm"], seed=job["llm_seed"]), job["schema_constraint"], job["beams"])
    if job["record"]:
        backend = CollectingBackend(inner=backend)
    res = Resources(job["config"], embed=_embedder(job["embed"]))
    e = job["example"]
    rec = answer(backend, make_selector(job["selector"], backend), res, db_path=e.db_path, question=e.question,
                 evidence=e.evidence, seed=job["seed"], qid=e.qid, db_id=e.db_id, difficulty=e.difficulty)
    return rec, getattr(backend, "exchanges", [])


@app.command()
def run(
    data: Annotated[Path, typer.Option("--data", help="BIRD or Spider directory.")],
    split: Annotated[str, typer.Option("--split", help="Split name: {split}.json.")] = "dev",
    llm: LLMOpt = None,
    record: RecordOpt = None,
    out: OutOpt = None,
    resume: ResumeOpt = False,
    seed: SeedOpt = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N questions.")] = None,
    bird_format: Annotated[Path | None, typer.Option("--bird-format", help="Also write the official BIRD "
                                                      "predictions JSON here.")] = None,
    per_generator: PerGenOpt = 7,
    generators: GensOpt = "dc,qp,os",
    temperature: TempOpt = 0.8,
    fix_attempts: FixOpt = 3,
    fix_seconds: FixSecondsOpt = 120.0,
    max_tokens: MaxTokensOpt = 1024,
    no_values: NoValuesOpt = False,
    selector: SelOpt = "llm",
    one_order: OneOrderOpt = False,
    timeout: TimeoutOpt = 10.0,
    row_cap: RowCapOpt = 10_000,
    dialect: DialectOpt = None,
    cache_dir: CacheOpt = None,
    embed: EmbedOpt = False,
    workers: WorkersOpt = 1,
    ray: RayOpt = None,
    schema_constraint: ConstrainOpt = True,
    beams: BeamsOpt = 4,
):
    """Predict SQL for every question of a split: one `sql.prediction` record each (all candidates, scores, choice).

    Example: reason chase-sql run --data assets/chase_sql/demo --llm replay:assets/chase_sql/replay-dev.jsonl -o p.jsonl
    """
    import contextlib
    import json
    import os

    from toolkit.chase_sql.data import load_dataset
    from toolkit.chase_sql.pipeline import Resources, answer
    from toolkit.chase_sql.selectors import make_selector
    from toolkit.core.extras import require
    from toolkit.core.parallel import iter_jobs
    from toolkit.core.records import RecordWriter, existing_keys, load_records

    require("sql")
    cfg = _config(per_generator, generators, temperature, fix_attempts, no_values, selector, one_order, timeout,
                  row_cap, dialect, cache_dir, fix_seconds, max_tokens)
    ds = load_dataset(data, split, limit)
    done = existing_keys(out, lambda r: r["qid"]) if resume else set()
    todo = [e for e in ds.examples if e.qid not in done]
    base_seed = seed_or_global(seed)
    with open_writer(out, resume) as writer:
        if workers > 1 or ray:
            make_llm(llm)  # a bad URI or missing replay file fails here, with one line, before any worker starts
            uri = llm or os.environ.get("REASON_LLM")
            jobs = [{"llm": uri, "llm_seed": base_seed, "config": cfg, "selector": selector, "embed": embed,
                     "example": e, "record": record is not None, "schema_constraint": schema_constraint,
                     "beams": beams,
                     "seed": base_seed + int(e.qid) if e.qid.isdigit() else base_seed} for e in todo]
            # Workers keep their exchanges; only this process appends them to --record, in question order.
            with RecordWriter(record, append=True) if record else contextlib.nullcontext() as recorder:
                for rec, exchanges in iter_jobs(_run_job, jobs, workers=workers, ray_address=ray,
                                                description="questions"):
                    writer.write(rec)
                    if recorder is not None:
                        recorder.write_all(exchanges)
        else:
            backend = _constrain(make_llm(llm, record, seed=base_seed), schema_constraint, beams)  # seeds hf: sampling
            res = Resources(cfg, embed=_embedder(embed))
            sel = make_selector(selector, backend)
            from toolkit.core.console import track

            for e in track(todo, len(todo), "questions"):
                writer.write(answer(backend, sel, res, db_path=e.db_path, question=e.question, evidence=e.evidence,
                                    seed=base_seed + int(e.qid) if e.qid.isdigit() else base_seed, qid=e.qid,
                                    db_id=e.db_id, difficulty=e.difficulty))
            report_usage(backend)
    if bird_format:
        if out is None:
            from toolkit.core.errors import InputError

            raise InputError("--bird-format needs --out (the predictions are read back from it)")
        from toolkit.chase_sql.bird_format import bird_predictions

        preds = load_records(out, types=["sql.prediction"])
        bird_format.parent.mkdir(parents=True, exist_ok=True)
        bird_format.write_text(json.dumps(bird_predictions(preds, ds), indent=1, ensure_ascii=False) + "\n")


@app.command("eval")
def evaluate(
    predictions: Annotated[Path, typer.Argument(help="sql.prediction JSONL ('-' for stdin).")],
    data: Annotated[Path, typer.Option("--data", help="BIRD or Spider directory with the gold SQL.")],
    split: Annotated[str, typer.Option("--split", help="Split name.")] = "dev",
    metric: Annotated[str, typer.Option("--metric", help="bird, spider, or auto (by the directory layout).")] = "auto",
    out: OutOpt = None,
    skip_bad: SkipBadOpt = False,
    timeout: TimeoutOpt = 30.0,
    dialect: DialectOpt = None,
):
    """Execution accuracy (BIRD or Spider) by difficulty, with oracle, self-consistency and selector accuracy.

    Example: reason chase-sql eval preds.jsonl --data assets/chase_sql/demo --metric bird
    """
    from toolkit.chase_sql.data import load_dataset
    from toolkit.chase_sql.evaluation import evaluate_prediction, prediction_problem, summarize
    from toolkit.chase_sql.executor import Executor
    from toolkit.chase_sql.show import show_summary
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.core.records import BadLines, make_record, read_records

    require("sql")
    ds = load_dataset(data, split)
    if metric not in ("auto", "bird", "spider"):
        raise InputError(f"--metric {metric}: expected bird, spider or auto")
    metric = ds.kind if metric == "auto" else metric
    gold = {e.qid: e for e in ds.examples}
    executor = Executor(timeout=timeout)
    bad = BadLines()
    rows = []
    with open_writer(out) as writer:
        for rec in read_records(predictions, types=["sql.prediction"], required=("qid", "sql"), skip_bad=skip_bad,
                                bad=bad):
            e = gold.get(str(rec["qid"]))
            problem = prediction_problem(rec)
            if e is None or problem:
                msg = (f"{predictions}: qid {rec['qid']}: {problem}" if problem else
                       f"{predictions}: qid {rec['qid']} is not a question of {data}/{split}.json")
                if not skip_bad:
                    raise InputError(msg)
                bad.add(msg)
                continue
            row = evaluate_prediction(rec, e.gold, e.db_path, executor, metric)
            rows.append(row)
            if dialect:
                from toolkit.chase_sql.pipeline import transpile

                row = {**row, "sql": rec["sql"], "dialect": dialect, "sql_dialect": transpile(rec["sql"], dialect)}
            writer.write(make_record("sql.eval", **row))
        summary = summarize(rows, metric)
        writer.write(make_record("sql.eval_summary", **summary))
    report_bad(bad)
    show_summary(summary)


@app.command("train-selector")
def train_selector(
    predictions: Annotated[list[Path], typer.Argument(help="sql.prediction JSONL from `run` on a training split; "
                                                           "several files: one --data each, in the same order.")],
    data: Annotated[list[Path], typer.Option("--data", help="Dataset directory with gold SQL for those predictions "
                                                            "(repeat it once per predictions file).")],
    model: Annotated[Path, typer.Option("--model", help="Local causal LM directory (config.json + weights); with "
                                                        "--classifier also a selector trained here, continued with "
                                                        "its A/B head.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the LoRA adapter or the classifier.")],
    split: Annotated[str, typer.Option("--split", help="Split of the predictions.")] = "train",
    classifier: Annotated[bool, typer.Option(
        "--classifier", help="Fine-tune all of --model with a new A/B head (a model trained here, e.g. the "
                             "shipped generator) instead of a LoRA adapter; serve with --selector model:OUT.")] = False,
    minutes: Annotated[float, typer.Option("--minutes", min=0.05, help="With --classifier: wall-clock budget.")] = 10.0,
    epochs: Annotated[int, typer.Option("--epochs", min=1)] = 3,
    lr: Annotated[float | None, typer.Option("--lr", help="Default 1e-3 (LoRA), 3e-4 (--classifier).")] = None,
    rank: Annotated[int, typer.Option("--rank", min=1, help="LoRA rank.")] = 8,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1)] = 8,
    max_length: Annotated[int, typer.Option("--max-length", min=16, help="Prompt tokens kept (from the end).")] = 1024,
    max_pairs: Annotated[int | None, typer.Option("--max-pairs", help="Use at most N pairs.")] = None,
    per_question: Annotated[int, typer.Option("--per-question", min=2, help="Pairs per question at most "
                                                                             "(both orders count).")] = 8,
    pair_unit: Annotated[str, typer.Option("--pair-unit", help="cluster: one pair per (right, wrong) result cluster, "
                                           "their first candidates; sql: any right vs wrong candidate of distinct "
                                           "SQL (more pairs from the same pools).")] = "cluster",
    device: Annotated[str, typer.Option("--device", help="auto, cpu or cuda[:N].")] = "auto",
    swap_consistency: Annotated[float, typer.Option(
        "--swap-consistency", min=0.0, help="With --classifier: weight of (P(A|a,b) + P(A|b,a) - 1)^2 in the loss, "
                                            "both orders of a pair in one batch (0: off).")] = 0.0,
    seed: SeedOpt = None,
):
    """Train a binary A/B selector on pairs from training candidate pools clustered by result.

    Example: reason chase-sql train-selector train-preds.jsonl --data BIRD --model ./qwen2.5-0.5b --out selector-lora
    """
    from toolkit.chase_sql.data import load_dataset
    from toolkit.chase_sql.selector_train import TrainConfig, build_pairs, train_lora_selector
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.core.records import load_records, make_record

    require("sql")
    require("ml", "torch", "transformers", *(() if classifier else ("peft",)))
    if len(data) != len(predictions):
        raise InputError(f"train-selector: {len(predictions)} predictions file(s) but {len(data)} --data "
                         "director(y/ies); give one --data per predictions file, in the same order")
    pairs = []
    for k, (pred_path, root) in enumerate(zip(predictions, data, strict=True)):
        found = build_pairs(load_records(pred_path, types=["sql.prediction"]), load_dataset(root, split),
                            seed=seed_or_global(seed), max_per_question=per_question, unit=pair_unit)
        for p in found:  # question ids repeat across worlds; the held-out split is by question
            p["qid"] = f"{k}:{p['qid']}" if len(predictions) > 1 else p["qid"]
        pairs += found
    if max_pairs is not None:
        pairs = pairs[:max_pairs]
    if classifier:
        from toolkit.chase_sql.learned.train_pairwise import train_pairwise

        report = train_pairwise(pairs, model, out, minutes=minutes, lr=lr or 3e-4, batch=batch_size,
                                max_length=min(max_length, 512), seed=seed_or_global(seed),
                                swap_weight=swap_consistency)
    else:
        cfg = TrainConfig(epochs=epochs, lr=lr or 1e-3, rank=rank, batch_size=batch_size, max_length=max_length,
                          device=device, seed=seed_or_global(seed))
        report = train_lora_selector(pairs, model, out, cfg)
    with open_writer(None) as writer:
        writer.write(make_record("sql.selector_training", out=str(out), **report))


@app.command("make-demo")
def make_demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory to write the demo dataset into.")],
):
    """Write the small BIRD-format demo set (3 SQLite databases, descriptions, 41 questions with gold SQL).

    Example: reason chase-sql make-demo --out assets/chase_sql/demo
    """
    from toolkit.chase_sql.demo import write_demo
    from toolkit.core.records import make_record

    path = write_demo(out)
    with open_writer(None) as writer:
        writer.write(make_record("sql.demo", out=str(path)))


@app.command()
def world(
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Directory to write the world into.")] = None,
    seed: SeedOpt = None,
    dbs: Annotated[int, typer.Option("--dbs", min=1, help="Number of databases.")] = 4,
    split: Annotated[str, typer.Option("--split", help="Schema vocabulary: train, validation or test (disjoint "
                                                       "table and column names).")] = "train",
    questions_per_db: Annotated[int, typer.Option("--questions-per-db", min=3, help="Questions per database.")] = 10,
    only_misspelt: Annotated[bool, typer.Option("--only-misspelt", help="Keep only the questions that write a "
                                                                        "database value with a typo.")] = False,
    names: Annotated[str, typer.Option("--names", help="split: the split's fixed table and column names; random: "
                                                       "names invented per database (never another split's), so a "
                                                       "model trained on them must copy names from the schema; "
                                                       "varied: 1-20 tables a database, names in the conventions of "
                                                       "real databases (cases, plurals, abbreviations, key styles), "
                                                       "questions in words and synonyms.")
                     ] = "split",
    verify: Annotated[Path | None, typer.Option(
        "--verify", help="Instead of writing, check an existing BIRD-layout directory: every database is SQLite and "
                         "every gold query runs.")] = None,
):
    """Generate a text-to-SQL world in BIRD layout (random schemas, values, templated questions with gold SQL).

    Example: reason chase-sql world --seed 1 --dbs 8 --split test --out worlds/test
    """
    import dataclasses

    from toolkit.chase_sql.world import verify_world, write_world
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.core.records import make_record

    if verify is not None:
        require("sql")  # the check runs gold queries through the read-only executor; generating needs only sqlite3
        report = verify_world(verify)
        with open_writer(None) as writer:
            writer.write(make_record("sql.world_check", **report))
        return
    if out is None:
        raise InputError("world: give --out DIR (or --verify DIR to check an existing world)")
    report = write_world(out, seed_or_global(seed), dbs, split, questions_per_db, only_misspelt, names)
    with open_writer(None) as writer:
        writer.write(make_record("sql.world", **dataclasses.asdict(report)))


@app.command("train-generator")
def train_generator(
    worlds: Annotated[list[Path], typer.Argument(help="Training world directories (from `world --split train`).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the model (served with --llm hf:DIR).")],
    minutes: Annotated[float, typer.Option("--minutes", min=0.05, help="Wall-clock training budget.")] = 25.0,
    vocab_size: Annotated[int, typer.Option("--vocab-size", min=100, help="BPE pieces at most.")] = 2000,
    lr: Annotated[float, typer.Option("--lr")] = 2e-3,
    batch_tokens: Annotated[int, typer.Option("--batch-tokens", min=256, help="Padded tokens a batch.")] = 4000,
    copy_drills: Annotated[bool, typer.Option("--copy-drills", help="Mix in copy drills and leave out texts over "
                                                                    "1,800 tokens (measured: no better).")] = False,
    schema: Annotated[str, typer.Option("--schema", help="How the model reads CREATE TABLE statements: full, or "
                                                         "compact (one line per table, about a third of the "
                                                         "tokens); the template is saved with the model.")] = "full",
    copy_head: Annotated[bool, typer.Option("--copy-head", help="Give the model a copy head (pointer-generator): "
                                                                "it can emit a token by pointing at its prompt, "
                                                                "the way unseen names reach the SQL.")] = False,
    init: Annotated[Path | None, typer.Option("--init", help="Continue a generator saved by an earlier run (its "
                                                             "tokenizer, template and weights): training in "
                                                             "chunks.")] = None,
    seed: SeedOpt = None,
):
    """Train the small SQL generator from scratch (a Llama config), or continue one (--init), on every pipeline
    stage of training worlds.

    Example: reason chase-sql train-generator worlds/train --out sqlgen --minutes 25
    """
    from toolkit.chase_sql.learned.template import TEMPLATES
    from toolkit.chase_sql.learned.train_generator import train_generator as train
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.core.records import make_record

    if schema not in TEMPLATES:
        raise InputError(f"--schema {schema}: expected one of {', '.join(TEMPLATES)}")
    require("sql")
    require("ml", "torch", "transformers")
    if init is not None and not (init / "config.json").is_file():
        raise InputError(f"--init {init}: not a generator directory (no config.json)")
    summary = train(worlds, out, minutes=minutes, seed=seed_or_global(seed), vocab_size=vocab_size, lr=lr,
                    batch_tokens=batch_tokens, copy_drills=copy_drills, schema=schema,
                    copy_head=copy_head, init=init)
    with open_writer(None) as writer:
        writer.write(make_record("sql.generator_training", out=str(out), **{k: v for k, v in summary.items()
                                                                           if k != "log"}))


@app.command()
def breakdown(
    predictions: Annotated[Path, typer.Argument(help="sql.prediction JSONL of one run.")],
    data: Annotated[Path, typer.Option("--data", help="The dataset directory the run answered (with gold SQL).")],
    split: Annotated[str, typer.Option("--split", help="Split name.")] = "dev",
    pool: Annotated[str | None, typer.Option("--pool", help="Keep the first k samples per generator, e.g. "
                                                            "dc:7,qp:7,os:7 (default: every candidate).")] = None,
    selector: Annotated[str | None, typer.Option("--selector", help="With --pool: choose within the pool by "
                                                                    "this selector's tournament (model:DIR, "
                                                                    "lora:DIR); default self-consistency.")] = None,
    seed: SeedOpt = None,
):
    """Per-generator EX and oracle, the fixer's gain, selector vs self-consistency with a paired bootstrap 95% CI,
    and the misspelt-value questions apart (BIRD EX, re-executed).

    Example: reason chase-sql breakdown preds.jsonl --data assets/chase_sql/world-test
    """
    from toolkit.chase_sql.breakdown import breakdown as question_table
    from toolkit.chase_sql.breakdown import misspelt_qids
    from toolkit.chase_sql.data import load_dataset
    from toolkit.chase_sql.selectors import make_selector
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.core.records import load_records, make_record

    require("sql")
    if selector is not None and (pool is None or not selector.startswith(("model:", "lora:"))):
        raise InputError(f"--selector {selector}: breakdown takes model:DIR or lora:DIR, with --pool "
                         "(without a pool the run's own choice is scored)")
    ds = load_dataset(data, split)
    chooser = make_selector(selector, None) if selector else None
    report = question_table(load_records(predictions, types=["sql.prediction"], required=("qid", "sql")), ds,
                            misspelt_qids(data, split), pool=pool, selector=chooser, seed=seed_or_global(seed))
    with open_writer(None) as writer:
        writer.write(make_record("sql.breakdown", predictions=str(predictions), **report))


@app.command()
def pairs(
    predictions: Annotated[Path, typer.Argument(help="sql.prediction JSONL of a run (candidate pools).")],
    data: Annotated[Path, typer.Option("--data", help="Dataset directory with the gold SQL.")],
    split: Annotated[str, typer.Option("--split", help="Split name.")] = "dev",
    per_question: Annotated[int, typer.Option("--per-question", min=2, help="Pairs per question at most.")] = 8,
    pair_unit: Annotated[str, typer.Option("--pair-unit", help="cluster: one pair per (right, wrong) result cluster, "
                                           "their first candidates; sql: any right vs wrong candidate of distinct "
                                           "SQL (more pairs from the same pools).")] = "cluster",
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Write the selector's labelled pairs of a run (right vs wrong result cluster, both orders) as sql.pair records.

    Example: reason chase-sql pairs test-preds.jsonl --data assets/chase_sql/world-test -o pairs.jsonl
    """
    from toolkit.chase_sql.data import load_dataset
    from toolkit.chase_sql.selector_train import build_pairs
    from toolkit.core.extras import require
    from toolkit.core.records import load_records, make_record

    require("sql")
    found = build_pairs(load_records(predictions, types=["sql.prediction"]), load_dataset(data, split),
                        seed=seed_or_global(seed), max_per_question=per_question, unit=pair_unit)
    with open_writer(out) as writer:
        for p in found:
            writer.write(make_record("sql.pair", qid=p["qid"], label=p["label"], text=p["text"]))


@app.command("score-pairs")
def score_pairs_cmd(
    pairs_file: Annotated[Path, typer.Argument(help="sql.pair JSONL written by `pairs` (each pair, then it swapped).")],
    selector: Annotated[str, typer.Option("--selector", help="model:DIR (trained with train-selector --classifier).")],
):
    """A trained selector's accuracy on labelled pairs and its A/B-swap agreement (one sql.pair_score record).

    Example: reason chase-sql score-pairs pairs.jsonl --selector model:assets/chase_sql/selector
    """
    from toolkit.chase_sql.learned.pairwise import ModelSelector, score_pairs
    from toolkit.core.errors import InputError
    from toolkit.core.records import load_records, make_record

    if not selector.startswith("model:"):
        raise InputError(f"--selector {selector}: score-pairs takes model:DIR")
    found = load_records(pairs_file, types=["sql.pair"], required=("qid", "label", "text"))
    if not found:
        raise InputError(f"{pairs_file}: no sql.pair records")
    report = score_pairs(ModelSelector(selector.removeprefix("model:")), found)
    report.pop("probs")
    with open_writer(None) as writer:
        writer.write(make_record("sql.pair_score", pairs=str(pairs_file), selector=selector, **report))


@app.command("greedy-ex")
def greedy_ex_cmd(
    data: Annotated[Path, typer.Option("--data", help="Dataset directory (BIRD layout).")],
    llm: LLMOpt = None,
    split: Annotated[str, typer.Option("--split", help="Split name.")] = "dev",
    limit: Annotated[int, typer.Option("--limit", min=1, help="The first N questions.")] = 24,
    fmt: Annotated[str, typer.Option("--format", help="Prompt format: dc or qp.")] = "dc",
    cache_dir: CacheOpt = None,
    schema_constraint: ConstrainOpt = True,
    beams: BeamsOpt = 4,
):
    """Quick check of a generator: greedy EX of one prompt format, keywords and SQL each decoded in one batch.

    Example: reason chase-sql greedy-ex --llm hf:assets/chase_sql/generator --data assets/chase_sql/world-test
    """
    from toolkit.chase_sql.learned.greedy_ex import FORMATS, greedy_ex
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.core.records import make_record

    require("sql")
    if fmt not in FORMATS:
        raise InputError(f"--format {fmt}: expected one of {', '.join(FORMATS)}")
    backend = _constrain(make_llm(llm), schema_constraint, beams)
    report = greedy_ex(backend, data, limit=limit, fmt=fmt, split=split, cache_dir=cache_dir)
    with open_writer(None) as writer:
        writer.write(make_record("sql.greedy_ex", data=str(data), **report))
