"""A quick, batched check of a generator: greedy EX of one prompt format on the first questions of a world.

Keywords and SQL are each decoded in one batched greedy pass (the pipeline's sampling runs one
request at a time), with the pipeline's own retrieval, schema filter and prompts in between.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from toolkit.chase_sql.context import QuestionContext, filter_schema
from toolkit.chase_sql.data import load_dataset
from toolkit.chase_sql.evaluation import bird_ex
from toolkit.chase_sql.executor import Executor
from toolkit.chase_sql.parsing import extract_sql, parse_keywords
from toolkit.chase_sql.prompts import dc_prompt, keywords_prompt, qp_prompt
from toolkit.chase_sql.schema import load_schema
from toolkit.chase_sql.values import build_index

FORMATS = ("dc", "qp")


def greedy_ex(llm, data: str | Path, *, limit: int, fmt: str = "dc", split: str = "dev",
              cache_dir: Path | None = None) -> dict[str, Any]:
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}")
    examples = load_dataset(data, split, limit).examples
    start = time.perf_counter()
    kw_texts = llm.complete_many([keywords_prompt(e.question, e.evidence) for e in examples], max_tokens=64)
    requests, indexes = [], {}
    for e, kw in zip(examples, kw_texts, strict=True):
        schema = load_schema(e.db_path)
        if e.db_path not in indexes:
            indexes[e.db_path] = build_index(e.db_path, cache_dir=cache_dir)
        values = indexes[e.db_path].lookup(parse_keywords(kw.text), top_k=5)
        ctx = QuestionContext(e.question, e.evidence, schema, values=values)
        if fmt == "dc":
            requests.append(dc_prompt(filter_schema(schema, e.question, e.evidence, values).render(), e.question,
                                      e.evidence, ctx.values_text()))
        else:
            requests.append(qp_prompt(schema.render(), e.question, e.evidence, ctx.values_text()))
    sql_start = time.perf_counter()
    answers = llm.complete_many(requests, max_tokens=160)
    sql_seconds = time.perf_counter() - sql_start
    executor = Executor()
    sqls = [extract_sql(a.text) for a in answers]
    results = [executor.run(e.db_path, sql) for e, sql in zip(examples, sqls, strict=True)]
    right = [bird_ex(r, executor.run(e.db_path, e.gold)) for e, r in zip(examples, results, strict=True)]
    executor.close()
    n = max(1, len(right))
    factory = getattr(_inner(llm), "processor_for", None)
    return {"format": fmt, "n": len(right), "ex": round(100.0 * sum(right) / n, 2),
            "executes": round(100.0 * sum(r.error is None for r in results) / n, 2),
            "schema_constraint": factory is not None,
            "beams": getattr(_inner(llm), "beams", 1) if factory is not None else 1,
            "seconds_per_question": round((time.perf_counter() - start) / n, 3),
            "sql_seconds_per_question": round(sql_seconds / n, 3), "sql": sqls}


def _inner(llm):
    while hasattr(llm, "inner"):
        llm = llm.inner
    return llm
