"""One question end to end: context -> 3 generators -> fixer -> clustering -> tournament."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.chase_sql.context import build_context
from toolkit.chase_sql.executor import Executor
from toolkit.chase_sql.fixer import fix_queries
from toolkit.chase_sql.generators import GenConfig, generate
from toolkit.chase_sql.schema import Schema, load_schema
from toolkit.chase_sql.selection import clusters, self_consistency, tournament
from toolkit.chase_sql.values import ValueIndex, build_index
from toolkit.core.records import make_record

PREDICTION = "sql.prediction"


@dataclass
class PipelineConfig:
    gen: GenConfig = field(default_factory=GenConfig)
    fix_attempts: int = 3
    fix_seconds: float | None = 120.0  # wall-clock budget of the fixer per question (None: unbounded)
    use_values: bool = True
    both_orders: bool = True
    selection: str = "tournament"  # or "self-consistency"
    timeout: float = 10.0
    row_cap: int = 10_000
    dialect: str | None = None
    cache_dir: Path | None = None


def tables_of(sql: str) -> set[str]:
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return set()
    return {t.name.lower() for t in tree.find_all(exp.Table)}


def transpile(sql: str, dialect: str | None) -> str | None:
    if not dialect:
        return None
    import sqlglot

    try:
        return sqlglot.transpile(sql, read="sqlite", write=dialect)[0]
    except sqlglot.errors.SqlglotError:
        return None


class Resources:
    """Per-database schema and value index, loaded once and shared by all questions of a run."""

    def __init__(self, config: PipelineConfig, embed=None) -> None:
        self.config = config
        self.embed = embed
        self.executor = Executor(config.timeout, config.row_cap)
        self._schemas: dict[str, Schema] = {}
        self._indexes: dict[str, ValueIndex] = {}

    def schema(self, db_path: Path) -> Schema:
        key = str(db_path)
        if key not in self._schemas:
            self._schemas[key] = load_schema(db_path)
        return self._schemas[key]

    def index(self, db_path: Path) -> ValueIndex | None:
        if not self.config.use_values:
            return None
        key = str(db_path)
        if key not in self._indexes:
            self._indexes[key] = build_index(db_path, cache_dir=self.config.cache_dir)
        return self._indexes[key]


def answer(llm, selector, res: Resources, *, db_path: Path, question: str, evidence: str = "", seed: int = 0,
           qid: str = "0", db_id: str = "", difficulty: str = "unknown") -> dict[str, Any]:
    """Run the whole pipeline for one question; returns a `sql.prediction` record."""
    cfg = res.config
    schema = res.schema(db_path)
    ctx = build_context(llm, res.index(db_path), schema, question, evidence, embed=res.embed)
    drafts = generate(llm, ctx, cfg.gen, seed)
    first = [res.executor.run(db_path, d.sql) for d in drafts]
    fixes = fix_queries(llm, res.executor, db_path, ctx, [(d.sql, r) for d, r in zip(drafts, first, strict=True)],
                        max_attempts=cfg.fix_attempts, max_tokens=cfg.gen.max_tokens, seconds=cfg.fix_seconds)
    candidates, results = [], []
    for d, fixed in zip(drafts, fixes, strict=True):
        results.append(fixed.result)
        candidates.append({"generator": d.generator, "sample": d.sample, "draft": d.sql, "sql": fixed.sql,
                           "fixes": fixed.attempts, "result": fixed.result.to_json(max_rows=3)})
        if fixed.stopped:
            candidates[-1]["fix_stopped"] = fixed.stopped
    cluster_ids = clusters(results)
    sc = self_consistency(cluster_ids)

    def choose(a: int, b: int) -> str:
        used = tables_of(candidates[a]["sql"]) | tables_of(candidates[b]["sql"])
        sub = Schema([t for t in schema.tables if t.name.lower() in used]) if used else schema
        return selector.choose(sub.render(), question, evidence, candidates[a]["sql"], results[a],
                               candidates[b]["sql"], results[b])

    if cfg.selection == "tournament" and selector is not None:
        tour = tournament(cluster_ids, choose, both_orders=cfg.both_orders)
        chosen, scores, comparisons = tour.winner, tour.scores, tour.comparisons
    else:
        chosen, scores, comparisons = sc, [0.0] * len(candidates), 0
    for c, cid, score in zip(candidates, cluster_ids, scores, strict=True):
        c["cluster"], c["score"] = cid, score
    chosen_sql = candidates[chosen]["sql"] if candidates else ""
    record = make_record(
        PREDICTION, schema=1, qid=qid, db_id=db_id, question=question, evidence=evidence, difficulty=difficulty,
        keywords=ctx.keywords, values=[m.to_json() for m in ctx.values],
        filtered_schema={t.name: [c.name for c in t.columns] for t in (ctx.filtered or schema).tables},
        candidates=candidates, chosen=chosen, sql=chosen_sql, self_consistency=sc,
        selection=cfg.selection, comparisons=comparisons)
    if cfg.dialect:
        record["dialect"] = cfg.dialect
        record["sql_dialect"] = transpile(chosen_sql, cfg.dialect)
    return record
