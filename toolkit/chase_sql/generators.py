"""The three candidate generators. Each sample sees the schema in a different (seeded) order.

- dc: divide-and-conquer chain of thought over the filtered schema.
- qp: query-plan chain of thought over the full schema.
- os: online synthetic examples, generated once per question for the full schema and for the
      filtered columns, then used as few-shot examples.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from toolkit.chase_sql.context import QuestionContext
from toolkit.chase_sql.parsing import extract_sql, parse_examples
from toolkit.chase_sql.prompts import SQL_FEATURES, dc_prompt, os_prompt, qp_prompt, synth_prompt
from toolkit.core.llm import complete_all

GENERATORS = ("dc", "qp", "os")


@dataclass
class GenConfig:
    per_generator: int = 7
    generators: tuple[str, ...] = GENERATORS
    temperature: float = 0.8
    max_tokens: int = 1024
    synthetic_examples: int = 4


@dataclass
class Draft:
    generator: str
    sample: int
    sql: str
    raw: str


def synthetic_examples(llm, ctx: QuestionContext, k: int, max_tokens: int = 1024) -> list[dict]:
    """Examples for the full schema (common SQL features) and for the filtered columns."""
    full = llm.complete(synth_prompt(ctx.schema.render(), k, SQL_FEATURES, "all tables"), n=1,
                        temperature=0.0, max_tokens=max_tokens).text
    filtered_schema = (ctx.filtered or ctx.schema).render()
    part = llm.complete(synth_prompt(filtered_schema, k, SQL_FEATURES[:4], "the columns relevant to a question"),
                        n=1, temperature=0.0, max_tokens=max_tokens).text
    examples = parse_examples(full) + parse_examples(part)
    seen, out = set(), []
    for e in examples:
        if e["sql"] not in seen:
            seen.add(e["sql"])
            out.append(e)
    return out


def generate(llm, ctx: QuestionContext, config: GenConfig, seed: int) -> list[Draft]:
    """Every candidate of one question, in one batch (a batching backend samples them together)."""
    filtered = ctx.filtered or ctx.schema
    values = ctx.values_text()
    examples: list[dict] = []
    if "os" in config.generators:
        examples = synthetic_examples(llm, ctx, config.synthetic_examples, config.max_tokens)
    slots, requests = [], []
    for gen in config.generators:
        for k in range(config.per_generator):
            rng = random.Random(f"{seed}:{gen}:{k}")
            if gen == "dc":
                msgs = dc_prompt(filtered.render(rng), ctx.question, ctx.evidence, values)
            elif gen == "qp":
                msgs = qp_prompt(ctx.schema.render(rng), ctx.question, ctx.evidence, values)
            elif gen == "os":
                shots = list(examples)
                rng.shuffle(shots)
                msgs = os_prompt(filtered.render(rng), ctx.question, ctx.evidence, values, shots)
            else:
                raise ValueError(f"unknown generator {gen!r}; expected one of {', '.join(GENERATORS)}")
            slots.append((gen, k))
            requests.append(msgs)
    completions = complete_all(llm, requests, temperature=config.temperature, max_tokens=config.max_tokens)
    return [Draft(gen, k, extract_sql(c.text), c.text) for (gen, k), c in zip(slots, completions, strict=True)]
