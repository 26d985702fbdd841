"""Per-question context: keywords (LLM), retrieved values (LSH), and the filtered schema."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from toolkit.chase_sql.parsing import parse_keywords
from toolkit.chase_sql.prompts import keywords_prompt
from toolkit.chase_sql.schema import Schema
from toolkit.chase_sql.values import ValueIndex, ValueMatch

_STOP = set("""a an the of in on at to for by with from and or is are was were be been what which who whom whose
how many much list give show find name names number average total all each per their its than that this those these
there do does did has have had please among between more most less least""".split())


@dataclass
class QuestionContext:
    question: str
    evidence: str
    schema: Schema
    keywords: list[str] = field(default_factory=list)
    values: list[ValueMatch] = field(default_factory=list)
    filtered: Schema | None = None

    def values_text(self, per_column: int = 5) -> str:
        grouped: dict[str, list[str]] = {}
        for m in self.values:
            grouped.setdefault(f"{m.table}.{m.column}", [])
            if len(grouped[f"{m.table}.{m.column}"]) < per_column:
                grouped[f"{m.table}.{m.column}"].append(repr(m.value))
        return "\n".join(f"{k}: {', '.join(v)}" for k, v in grouped.items())


def extract_keywords(llm, question: str, evidence: str, max_tokens: int = 128) -> list[str]:
    return parse_keywords(llm.complete(keywords_prompt(question, evidence), n=1, temperature=0.0,
                                       max_tokens=max_tokens).text)


def _terms(text: str) -> list[str]:
    words = [w for w in re.findall(r"[A-Za-z0-9]+", text.lower()) if w not in _STOP and len(w) > 1]
    return words + [a + b for a, b in zip(words, words[1:], strict=False)]


def filter_schema(schema: Schema, question: str, evidence: str, values: list[ValueMatch],
                  threshold: float = 85.0) -> Schema:
    """Columns whose name or description matches a question/hint term or holds a retrieved value, plus keys;
    tables that keep at least one such column, or whose name is mentioned."""
    from rapidfuzz import fuzz

    terms = set(_terms(question + " " + evidence))
    valued = {(m.table.lower(), m.column.lower()) for m in values}
    keep: dict[str, set[str]] = {}
    for t in schema.tables:
        tname = t.name.lower()
        table_hit = any(fuzz.ratio(term, tname.replace("_", "")) >= threshold or
                        fuzz.ratio(term.rstrip("s"), tname.rstrip("s")) >= threshold for term in terms)
        cols = set()
        for c in t.columns:
            cname = c.name.lower()
            short = c.description if len(c.description.split()) <= 4 else ""  # an expanded name, not prose
            pieces = [cname, cname.replace("_", ""), *cname.split("_"), *_terms(short)]
            if (tname, cname) in valued or any(
                    fuzz.ratio(term, p) >= threshold for term in terms for p in pieces if len(p) > 1):
                cols.add(cname)
        if cols or table_hit:
            keep[tname] = cols
    if not keep:
        return schema
    return schema.subset(keep)


def build_context(llm, index: ValueIndex | None, schema: Schema, question: str, evidence: str, *,
                  embed=None, top_k: int = 5) -> QuestionContext:
    ctx = QuestionContext(question, evidence, schema)
    if index is not None and llm is not None:
        ctx.keywords = extract_keywords(llm, question, evidence)
        ctx.values = index.lookup(ctx.keywords, top_k=top_k, embed=embed)
    ctx.filtered = filter_schema(schema, question, evidence, ctx.values)
    return ctx
