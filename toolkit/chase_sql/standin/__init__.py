"""A deterministic stand-in LLM for demos and CI replays (`--llm py:toolkit.chase_sql.standin:complete`).

No real LLM exists where the shipped recordings are made, so this rule-based backend plays every
role of the pipeline from the prompt alone: it never opens a dataset, a gold query or a database.
- generators (dc, qp, os): a rule-based text-to-SQL (`writer.py`) over the schema, retrieved values,
  question and hint shown in the prompt. Each generator has its own habits (how close a misspelt
  phrase must be to a shown value, how often it takes the second reading of an ambiguous choice), and
  each sample hashes its own prompt (the schema comes in a seeded order), so the pool is diverse;
- keywords, synthetic examples, fixer: `roles.py`;
- selector: `judge.py`, a judge of the two candidates and their shown results.
All choices are hashes of the prompt, so the same prompt always gets the same answer.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from toolkit.chase_sql import prompts as P
from toolkit.chase_sql.standin import judge, roles
from toolkit.chase_sql.standin.reading import read_prompt
from toolkit.chase_sql.standin.writer import write_sql


def unit(*parts: str) -> float:
    """A number in [0, 1) fixed by the text: the stand-in's only source of randomness."""
    h = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return int.from_bytes(h[:8], "big") / 2**64


@dataclass(frozen=True)
class Habits:
    cutoff: float    # edit similarity (0-100) at which a question phrase is read as a shown value
    explore: float   # chance of the second reading at an ambiguous choice


HABITS = {"dc": Habits(84, 0.15), "qp": Habits(80, 0.25), "os": Habits(88, 0.35)}


class Chooser:
    """Ranked readings -> the first, or the second with the generator's exploration rate (per prompt)."""

    def __init__(self, habits: Habits, salt: str) -> None:
        self.cutoff, self.explore, self.salt = habits.cutoff, habits.explore, salt

    def __call__(self, options: list, key: str):
        if len(options) > 1 and unit(self.salt, key) < self.explore:
            return options[1]
        return options[0]


def complete(messages, n=1, temperature=0.0, max_tokens=256, stop=None):
    prompt = "\n".join(m["content"] if isinstance(m["content"], str) else "" for m in messages)
    if P.TASK_KEYWORDS in prompt:
        return [roles.keywords(prompt)] * n
    if P.TASK_SYNTH in prompt:
        return [roles.synthetic(prompt)] * n
    if P.TASK_FIX in prompt:
        return [roles.fix(prompt)] * n
    if P.TASK_SELECT in prompt:
        return [judge.choose(prompt, unit(prompt, "judge"))] * n
    for tag, gen in ((P.TASK_DC, "dc"), (P.TASK_QP, "qp"), (P.TASK_OS, "os")):
        if tag in prompt:
            return [generate(prompt, gen, i) for i in range(n)]
    return ["I cannot help with that."] * n


def generate(prompt: str, gen: str, i: int = 0) -> str:
    sql = write_sql(read_prompt(prompt), Chooser(HABITS[gen], f"{prompt}\x1f{i}"))
    if sql is None:
        return "I could not map this question onto the schema."
    if gen == "dc":
        return f"Sub-question 1: the rows asked for.\nAssembled, simplified.\nFinal SQL:\n```sql\n{sql}\n```"
    if gen == "qp":
        return f"1. find the tables\n2. filter, join and aggregate\n3. output the columns\n```sql\n{sql}\n```"
    return f"```sql\n{sql}\n```"
