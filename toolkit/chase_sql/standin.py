"""A deterministic stand-in LLM for the shipped demo (`--llm py:toolkit.chase_sql.standin:complete`).

No real LLM exists where the demo recordings were made, so this rule-based backend plays every
role of the pipeline. It is NOT a text-to-SQL model: it knows the demo's gold SQL and answers
like an imperfect model would, so the pipeline (retrieval, fixer, clustering, tournament) has
realistic material to work on:
- keywords: capitalised phrases, quoted strings and content words of the question;
- generators: the gold query with a probability that depends on generator and difficulty,
  otherwise a systematic mistake (dropped filter, flipped order, swapped aggregate, a wrong
  column name, ...). String literals of the gold query that appear nowhere in the prompt
  (question, hint, retrieved values, schema examples) are replaced by the closest phrase of
  the question, so misspelled questions fail unless value retrieval found the real value;
- synthetic examples: simple questions built from the CREATE TABLE statements;
- fixer: maps an unknown column/table to the closest schema name, and on an empty result
  swaps string literals for the closest retrieved value;
- selector: a noisy judge that runs both candidates and the gold query on the demo database
  and prefers the correct one 80% of the time (coin flip when both or neither are correct).
All choices are hashes of the prompt, so the same prompt always gets the same answer.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from pathlib import Path

from toolkit.chase_sql import prompts as P
from toolkit.chase_sql.parsing import extract_sql
from toolkit.core.assets import asset_path

DEFAULT_DATA = asset_path("chase_sql/demo")
ENV_DATA = "REASON_CHASE_STANDIN_DATA"

P_CORRECT = {  # (generator, difficulty) -> probability of writing the gold query
    "dc": {"simple": 0.6, "moderate": 0.4, "challenging": 0.25},
    "qp": {"simple": 0.55, "moderate": 0.45, "challenging": 0.3},
    "os": {"simple": 0.65, "moderate": 0.35, "challenging": 0.2},
}
MUTATIONS = ("drop_filter", "flip_order", "swap_aggregate", "toggle_distinct", "wrong_column", "change_limit")
JUDGE_ACCURACY = 0.8
_JOINERS = ("au", "of", "de", "the", "du")
_STOP = set("""what which who how many much the a an of in on at to for by with
from and or is are was were does did do list give show name names their its that this those these there have has
were per each all total number""".split())


def _u(*parts: str) -> float:
    h = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return int.from_bytes(h[:8], "big") / 2**64


@functools.lru_cache(maxsize=4)
def _knowledge(root: str) -> dict[str, dict]:
    path = Path(root)
    items = json.loads((path / "dev.json").read_text(encoding="utf-8"))
    for split in ("train",):
        if (path / f"{split}.json").is_file():
            items += json.loads((path / f"{split}.json").read_text(encoding="utf-8"))
    out = {}
    for item in items:
        db = item["db_id"]
        for base in ("dev_databases", "train_databases"):
            cand = path / base / db / f"{db}.sqlite"
            if cand.is_file():
                item = {**item, "db_path": str(cand)}
                break
        out[" ".join(item["question"].split())] = item
    return out


def knowledge() -> dict[str, dict]:
    return _knowledge(os.environ.get(ENV_DATA, str(DEFAULT_DATA)))


def _last(pattern: str, text: str) -> str | None:
    found = re.findall(pattern, text, re.M)
    return found[-1].strip() if found else None


def _question(prompt: str) -> dict | None:
    q = _last(r"^Question: (.+)$", prompt)
    return knowledge().get(" ".join(q.split())) if q else None


def complete(messages, n=1, temperature=0.0, max_tokens=256, stop=None):
    prompt = "\n".join(m["content"] if isinstance(m["content"], str) else "" for m in messages)
    if P.TASK_KEYWORDS in prompt:
        return [_keywords(prompt)] * n
    if P.TASK_SYNTH in prompt:
        return [_synthetic(prompt)] * n
    if P.TASK_FIX in prompt:
        return [_fix(prompt)] * n
    if P.TASK_SELECT in prompt:
        return [_select(prompt)] * n
    for tag, gen in ((P.TASK_DC, "dc"), (P.TASK_QP, "qp"), (P.TASK_OS, "os")):
        if tag in prompt:
            return [_generate(prompt, gen, i) for i in range(n)]
    return ["I cannot help with that."] * n


# --- keywords -------------------------------------------------------------------------------------------------

def _keywords(prompt: str) -> str:
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


# --- generators -----------------------------------------------------------------------------------------------

def _generate(prompt: str, gen: str, i: int) -> str:
    item = _question(prompt)
    if item is None:
        return "```sql\nSELECT 1\n```"
    gold = item["SQL"]
    p = P_CORRECT[gen].get(item.get("difficulty", "moderate"), 0.5)
    u = _u(prompt, str(i))
    if u < p:
        sql = gold
    else:
        sql = _mutate(gold, item["question"], _u(prompt, "kind", str(i)))
    sql = _ground_literals(sql, prompt, item["question"])
    if gen == "dc":
        return f"Sub-question 1: the rows asked for.\nAssembled, simplified.\nFinal SQL:\n```sql\n{sql}\n```"
    if gen == "qp":
        return f"1. find the tables\n2. filter, join and aggregate\n3. output the columns\n```sql\n{sql}\n```"
    return f"```sql\n{sql}\n```"


def _mutate(gold: str, question: str, u: float) -> str:
    """A systematic mistake: most wrong samples of a question make the same one (like a real model)."""
    order = list(MUTATIONS)
    start = int(_u(question, "habit") * len(order))
    if u >= 0.7:  # an occasional different mistake
        start = (start + 1 + int((u - 0.7) / 0.3 * (len(order) - 1))) % len(order)
    for k in range(len(order)):
        out = _apply(gold, order[(start + k) % len(order)])
        if out and out != gold:
            return out
    return gold


def _apply(gold: str, kind: str) -> str | None:
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(gold, read="sqlite")
    if kind == "drop_filter":
        where = tree.find(exp.Where)
        if where is None:
            return None
        cond = where.this
        if isinstance(cond, exp.And):
            where.set("this", cond.left)
        else:
            where.pop()
    elif kind == "flip_order":
        ordered = list(tree.find_all(exp.Ordered))
        if not ordered:
            return None
        for o in ordered:
            o.set("desc", not o.args.get("desc"))
    elif kind == "swap_aggregate":
        swap = {exp.Sum: exp.Avg, exp.Avg: exp.Sum, exp.Max: exp.Min, exp.Min: exp.Max}
        node = next((n for n in tree.walk() if type(n) in swap or isinstance(n, exp.Count)), None)
        if node is None:
            return None
        if isinstance(node, exp.Count):
            arg = node.this
            if isinstance(arg, exp.Distinct):
                node.set("this", arg.expressions[0])
            else:
                return None
        else:
            node.replace(swap[type(node)](this=node.this))
    elif kind == "toggle_distinct":
        select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
        if select is None:
            return None
        select.set("distinct", None if select.args.get("distinct") else exp.Distinct())
        if not tree.find(exp.Join) and not select.args.get("distinct"):
            return None
    elif kind == "wrong_column":
        col = next((c for c in tree.find_all(exp.Column) if len(c.name) > 3), None)
        if col is None:
            return None
        name = col.name
        col.set("this", exp.to_identifier(name.replace("_", "") if "_" in name else name + "_name"))
    elif kind == "change_limit":
        limit = tree.args.get("limit")
        if limit is None:
            return None
        limit.set("expression", exp.Literal.number(3))
    return tree.sql(dialect="sqlite")


def _ground_literals(sql: str, prompt: str, question: str) -> str:
    """A literal the model could not have seen is written the way the question spells it."""
    import sqlglot
    from rapidfuzz import fuzz
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return sql
    words = re.findall(r"[\w\-&.]+", question)
    grams = [" ".join(words[i:j]).strip(".?") for i in range(len(words))
             for j in range(i + 1, min(i + 5, len(words) + 1))]
    changed = False
    for lit in tree.find_all(exp.Literal):
        if not lit.is_string or lit.this in prompt or not grams:
            continue
        best = max(grams, key=lambda g: (fuzz.ratio(g.lower(), lit.this.lower()), -len(g)))
        lit.set("this", best)
        changed = True
    return tree.sql(dialect="sqlite") if changed else sql


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


def _synthetic(prompt: str) -> str:
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

def _fix(prompt: str) -> str:
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


# --- selector -------------------------------------------------------------------------------------------------------

def _select(prompt: str) -> str:
    from toolkit.chase_sql.evaluation import bird_ex
    from toolkit.chase_sql.executor import execute_sql

    item = _question(prompt)
    blocks = re.findall(r"Candidate ([AB]):\n```sql\n(.*?)\n```", prompt, re.S)
    if item is None or len(blocks) != 2 or "db_path" not in item:
        return "A"
    sqls = dict(blocks)
    gold = execute_sql(item["db_path"], item["SQL"])
    ok_a = bird_ex(execute_sql(item["db_path"], sqls["A"]), gold)
    ok_b = bird_ex(execute_sql(item["db_path"], sqls["B"]), gold)
    u = _u(prompt, "judge")
    if ok_a != ok_b:
        right = "A" if ok_a else "B"
        return right if u < JUDGE_ACCURACY else ("B" if right == "A" else "A")
    return "A" if u < 0.5 else "B"
