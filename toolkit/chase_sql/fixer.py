"""Query fixer: a candidate that fails or returns nothing is re-prompted with the feedback, up to 3 times,
within a wall-clock budget per question (no attempt starts once it is spent)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from toolkit.chase_sql.context import QuestionContext
from toolkit.chase_sql.executor import ExecResult, Executor
from toolkit.chase_sql.parsing import extract_sql
from toolkit.chase_sql.prompts import fix_prompt
from toolkit.core.llm import complete_all


def needs_fix(result: ExecResult) -> bool:
    return result.error is not None or not result.rows


def feedback(result: ExecResult) -> str:
    if result.timed_out:
        return f"the query did not finish ({result.error}); it is probably far too expensive"
    if result.error is not None:
        return f"error: {result.error}"
    return "the query ran but returned no rows (check the filter values and joins)"


@dataclass
class Fixed:
    sql: str
    result: ExecResult
    attempts: list[dict] = field(default_factory=list)
    stopped: str | None = None  # why the fixer stopped before its attempts ran out


def fix_query(llm, executor: Executor, db_path, ctx: QuestionContext, sql: str, result: ExecResult, *,
              max_attempts: int = 3, max_tokens: int = 1024, seconds: float | None = None) -> Fixed:
    return fix_queries(llm, executor, db_path, ctx, [(sql, result)], max_attempts=max_attempts,
                       max_tokens=max_tokens, seconds=seconds)[0]


def fix_queries(llm, executor: Executor, db_path, ctx: QuestionContext, items: list[tuple[str, ExecResult]], *,
                max_attempts: int = 3, max_tokens: int = 1024, seconds: float | None = None,
                clock=time.monotonic) -> list[Fixed]:
    """Fix every (sql, result) of one question. Each attempt is one batch over the candidates still failing;
    identical failing queries share one request (the fixer decodes greedily, so they would get one answer).
    With `seconds`, no attempt starts after that many seconds have passed since the first began; a candidate
    that an unspent attempt would have re-prompted keeps its last query and says why (`stopped`)."""
    start = clock()
    schema = (ctx.filtered or ctx.schema).render()
    values = ctx.values_text()
    fixed = [Fixed(sql, result) for sql, result in items]
    active = [i for i, f in enumerate(fixed) if needs_fix(f.result)]
    for _ in range(max_attempts):
        if not active:
            break
        if seconds is not None and clock() - start >= seconds:
            for i in active:
                fixed[i].stopped = f"fixer time budget of {seconds:g} s spent"
            break
        notes = {i: feedback(fixed[i].result) for i in active}
        keys = list(dict.fromkeys((fixed[i].sql, notes[i]) for i in active))
        texts = complete_all(llm, [fix_prompt(schema, ctx.question, ctx.evidence, values, sql, note)
                                   for sql, note in keys], temperature=0.0, max_tokens=max_tokens)
        answers = {key: extract_sql(c.text) for key, c in zip(keys, texts, strict=True)}
        runs: dict[str, ExecResult] = {}
        still = []
        for i in active:
            f = fixed[i]
            new_sql = answers[(f.sql, notes[i])]
            f.attempts.append({"sql": f.sql, "feedback": notes[i], "fixed": new_sql})
            if not new_sql or new_sql == f.sql:
                continue
            if new_sql not in runs:
                runs[new_sql] = executor.run(db_path, new_sql)
            f.sql, f.result = new_sql, runs[new_sql]
            if needs_fix(f.result):
                still.append(i)
        active = still
    return fixed
