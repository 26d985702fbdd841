"""Training texts for the generator, built from a world's questions and gold SQL (train split only).

Each question gives one example per pipeline stage, rendered by the pipeline's own prompt functions
over the real retrieved values and filtered schema, so the model is trained on what it will be sent:
- dc / qp / os: the three generator prompts -> the gold SQL;
- keywords: the question -> the literal values it writes (as written, misspellings included);
- synthetic examples: a schema -> other questions of the same database with their SQL;
- fixing: a gold query broken the way candidates break (a value as the question misspells it, a wrong
  column) with the executor's real feedback -> the gold SQL.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

from toolkit.chase_sql.context import QuestionContext, filter_schema
from toolkit.chase_sql.data import Example, load_dataset
from toolkit.chase_sql.executor import Executor
from toolkit.chase_sql.fixer import feedback, needs_fix
from toolkit.chase_sql.prompts import (
    SQL_FEATURES,
    dc_prompt,
    fix_prompt,
    keywords_prompt,
    os_prompt,
    qp_prompt,
    synth_prompt,
)
from toolkit.chase_sql.schema import load_schema
from toolkit.chase_sql.values import build_index

LITERAL = re.compile(r"'((?:[^']|'')*)'")
NO_VALUES_SHARE = 0.15  # prompts without retrieved values, as `--no-values` sends them


@dataclass
class TrainText:
    stage: str
    messages: list[dict]
    target: str
    qid: str


def keyword_target(gold: str, misspelling: dict | None) -> list[str]:
    """The literal values of the gold query as the question writes them."""
    out = []
    for lit in LITERAL.findall(gold):
        value = lit.replace("''", "'")
        if misspelling and misspelling.get("value") == value:
            value = misspelling["written"]
        out.append(value)
    return list(dict.fromkeys(out))


def examples_json(items: list[Example]) -> str:
    return json.dumps([{"question": e.question, "sql": e.gold} for e in items], ensure_ascii=False)


def broken_versions(gold: str, misspelling: dict | None, columns: list[str], rng: random.Random) -> list[str]:
    """Gold SQL broken as drafts break: the value as misspelt in the question, or a column renamed."""
    out = []
    if misspelling and f"'{misspelling['value']}'" in gold:
        out.append(gold.replace(f"'{misspelling['value']}'", f"'{misspelling['written']}'"))
    used = [c for c in columns if re.search(rf"\b{re.escape(c)}\b", gold)]
    if used:
        col = rng.choice(used)
        wrong = rng.choice([w for w in (col.split("_")[0], col.replace("_", ""), col + "s", rng.choice(columns))
                            if w != col] or [col + "s"])
        out.append(re.sub(rf"\b{re.escape(col)}\b", wrong, gold, count=1))
    return out


def world_texts(root: str | Path, seed: int, split: str = "dev") -> list[TrainText]:
    """All training texts of one world directory (BIRD layout)."""
    rng = random.Random(seed)
    ds = load_dataset(root, split)
    raw = {str(q["question_id"]): q for q in json.loads((Path(root) / f"{split}.json").read_text())}
    by_db: dict[str, list[Example]] = {}
    for e in ds.examples:
        by_db.setdefault(e.db_id, []).append(e)
    executor = Executor()
    texts: list[TrainText] = []
    for items in by_db.values():
        db_path = items[0].db_path
        schema, index = load_schema(db_path), build_index(db_path)
        columns = schema.column_names()
        for e in items:
            texts += question_texts(e, raw[e.qid].get("misspelling"), schema, index, columns, items, executor, rng)
        for k in (2, 3, 4):  # the synthetic-example stage, for the full schema and a filtered one
            shots = rng.sample(items, min(k, len(items)))
            texts.append(TrainText("synth", synth_prompt(schema.render(rng), k, SQL_FEATURES, "all tables"),
                                   examples_json(shots), items[0].qid))
            part = filter_schema(schema, shots[0].question, shots[0].evidence, [])
            texts.append(TrainText("synth", synth_prompt(part.render(rng), k, SQL_FEATURES[:4],
                                                         "the columns relevant to a question"),
                                   examples_json(shots), items[0].qid))
    executor.close()
    return texts


def question_texts(e: Example, misspelling, schema, index, columns, same_db, executor, rng) -> list[TrainText]:
    keywords = keyword_target(e.gold, misspelling)
    values = index.lookup(keywords, top_k=5)
    if not misspelling and rng.random() < NO_VALUES_SHARE:
        values = []
    ctx = QuestionContext(e.question, e.evidence, schema, keywords, values)
    filtered = filter_schema(schema, e.question, e.evidence, values)
    vt = ctx.values_text()
    shots = [x for x in same_db if x.qid != e.qid]
    shots = rng.sample(shots, min(len(shots), rng.randint(2, 8)))
    out = [
        TrainText("keywords", keywords_prompt(e.question, e.evidence), json.dumps(keywords, ensure_ascii=False),
                  e.qid),
        TrainText("dc", dc_prompt(filtered.render(rng), e.question, e.evidence, vt), e.gold, e.qid),
        TrainText("qp", qp_prompt(schema.render(rng), e.question, e.evidence, vt), e.gold, e.qid),
        TrainText("os", os_prompt(filtered.render(rng), e.question, e.evidence, vt,
                                  [{"question": x.question, "sql": x.gold} for x in shots]), e.gold, e.qid),
    ]
    for bad in broken_versions(e.gold, misspelling, columns, rng):
        result = executor.run(e.db_path, bad)
        if needs_fix(result):
            out.append(TrainText("fix", fix_prompt(filtered.render(rng), e.question, e.evidence, vt, bad,
                                                   feedback(result)), e.gold, e.qid))
    return out
