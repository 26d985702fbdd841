"""The stand-in's prompt-only roles besides SQL writing: keywords, synthetic examples and the fixer.

- keywords: capitalised phrases, quoted strings and content words of the question;
- synthetic examples: simple questions built from the CREATE TABLE statements;
- fixer: maps an unknown column/table to the closest schema name, and on an empty result
  swaps string literals for the closest retrieved value.
"""

from __future__ import annotations

import json
import re

from toolkit.chase_sql.parsing import extract_sql

_JOINERS = ("au", "of", "de", "the", "du")
_STOP = set("""what which who how many much the a an of in on at to for by with
from and or is are was were does did do list give show name names their its that this those these there have has
were per each all total number""".split())


def _last(pattern: str, text: str) -> str | None:
    found = re.findall(pattern, text, re.M)
    return found[-1].strip() if found else None


# --- keywords -------------------------------------------------------------------------------------------------

def keywords(prompt: str) -> str:
    q = _last(r"^Question: (.+)$", prompt) or ""
    hint = _last(r"^Hint: (.+)$", prompt) or ""
    found = re.findall(r"'([^']+)'", q)
    tokens = re.findall(r"[\w\-&.]+", q)
    run: list[str] = []
    for i, tok in enumerate(tokens + [""]):
        if tok[:1].isupper() and (i > 0 or tok.lower() not in _STOP):
            run.append(tok)
        elif run and tok.lower() in _JOINERS and i + 1 < len(tokens) and tokens[i + 1][:1].isupper():
            run.append(tok)
        else:
            if run:
                found.append(" ".join(run).strip(".?"))
            run = []
    found += [t.strip(".?") for t in tokens if len(t) > 3 and t.lower() not in _STOP]
    if hint and hint != "none":
        found += re.findall(r"'([^']+)'", hint)
    return json.dumps(list(dict.fromkeys(f for f in found if f)), ensure_ascii=False)


# --- synthetic examples -----------------------------------------------------------------------------------------

def _tables(prompt: str) -> list[tuple[str, list[tuple[str, str]]]]:
    body = prompt.split("Database schema:", 1)[-1]
    out = []
    for name, cols in re.findall(r"CREATE TABLE `?(\w+)`? \((.*?)\n\);", body, re.S):
        parsed = []
        for line in cols.splitlines():
            m = re.match(r"\s+`?(\w+)`? (\w+)", line)
            if m and m.group(1) != "FOREIGN":
                parsed.append((m.group(1), m.group(2).upper()))
        out.append((name, parsed))
    return out


def synthetic(prompt: str) -> str:
    k = int(_last(r"Write (\d+) diverse", prompt) or 3)
    examples = []
    for table, cols in _tables(prompt):
        text = [c for c, t in cols if t == "TEXT" and not c.endswith("id")]
        nums = [c for c, t in cols if t in ("INTEGER", "REAL") and not c.endswith("id")]
        examples.append({"question": f"How many rows does {table} have?", "sql": f"SELECT COUNT(*) FROM {table}"})
        if text:
            examples.append({"question": f"List the different {text[0]} values of {table}.",
                             "sql": f"SELECT DISTINCT {text[0]} FROM {table}"})
        if nums:
            examples.append({"question": f"What is the largest {nums[0]} in {table}?",
                             "sql": f"SELECT MAX({nums[0]}) FROM {table}"})
    return json.dumps(examples[:k], ensure_ascii=False)


# --- fixer ----------------------------------------------------------------------------------------------------------

def fix(prompt: str) -> str:
    import sqlglot
    from rapidfuzz import fuzz, process
    from sqlglot import exp

    sql = extract_sql(prompt.split("Query:", 1)[-1].split("Execution feedback:", 1)[0])
    note = prompt.split("Execution feedback:", 1)[-1]
    tables = _tables(prompt)
    columns = sorted({c for _, cols in tables for c, _ in cols})
    m = re.search(r"no such column: (?:\w+\.)?(\w+)", note)
    if m and columns:
        best = process.extractOne(m.group(1), columns, scorer=fuzz.ratio)[0]
        sql = re.sub(rf"\b{re.escape(m.group(1))}\b", best, sql)
    m = re.search(r"no such table: (\w+)", note)
    if m and tables:
        best = process.extractOne(m.group(1), [t for t, _ in tables], scorer=fuzz.ratio)[0]
        sql = re.sub(rf"\b{re.escape(m.group(1))}\b", best, sql)
    if "no rows" in note:
        values = re.findall(r"'((?:[^'\\]|\\.)*)'", prompt.split("Relevant values found in the database", 1)[-1]
                            .split("Question:", 1)[0]) if "Relevant values found" in prompt else []
        try:
            tree = sqlglot.parse_one(sql, read="sqlite")
        except sqlglot.errors.SqlglotError:
            tree = None
        if tree is not None and values:
            for lit in tree.find_all(exp.Literal):
                if lit.is_string and "%" not in lit.this:
                    best, score, _ = process.extractOne(lit.this, values, scorer=fuzz.ratio)
                    if score >= 60 and best != lit.this:
                        lit.set("this", best)
            sql = tree.sql(dialect="sqlite")
    return f"The query is corrected below.\n```sql\n{sql}\n```"
