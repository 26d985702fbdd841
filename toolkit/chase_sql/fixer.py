"""Query fixer: a candidate that fails or returns nothing is re-prompted with the feedback, up to 3 times."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolkit.chase_sql.context import QuestionContext
from toolkit.chase_sql.executor import ExecResult, Executor
from toolkit.chase_sql.parsing import extract_sql
from toolkit.chase_sql.prompts import fix_prompt


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


def fix_query(llm, executor: Executor, db_path, ctx: QuestionContext, sql: str, result: ExecResult, *,
              max_attempts: int = 3, max_tokens: int = 1024) -> Fixed:
    schema = (ctx.filtered or ctx.schema).render()
    values = ctx.values_text()
    attempts = []
    for _ in range(max_attempts):
        if not needs_fix(result):
            break
        note = feedback(result)
        text = llm.complete(fix_prompt(schema, ctx.question, ctx.evidence, values, sql, note), n=1,
                            temperature=0.0, max_tokens=max_tokens).text
        new_sql = extract_sql(text)
        attempts.append({"sql": sql, "feedback": note, "fixed": new_sql})
        if not new_sql or new_sql == sql:
            break
        sql, result = new_sql, executor.run(db_path, new_sql)
    return Fixed(sql, result, attempts)
