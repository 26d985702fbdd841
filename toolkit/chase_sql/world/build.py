"""Write a generated text-to-SQL world in BIRD layout, and verify any BIRD-layout world.

`write_world` draws N databases of one split (schema vocabulary of that split only), fills them,
and draws questions whose gold SQL runs and returns a non-trivial, unambiguous result; drafts that
fail are redrawn. Output: DIR/dev.json, DIR/dev_databases/<db>/<db>.sqlite and description CSVs.
Everything derives from (seed, split, database index), so the same arguments give identical files.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from toolkit.chase_sql.world.questions import Draft, draft
from toolkit.chase_sql.world.schema import WorldDB, draw_schema, fill_rows, write_descriptions, write_sqlite
from toolkit.chase_sql.world.vocab import SPLITS
from toolkit.core.errors import InputError, RuntimeFailure

# Per 10 questions of a database: 4 simple, 4 moderate, 2 challenging (with 3 or more, all three levels).
LEVELS = ("simple", "moderate", "challenging", "simple", "moderate", "simple", "moderate", "simple",
          "challenging", "moderate")
MAX_DRAWS = 200
NAME_SOURCES = ("split", "random", "varied")  # the split's fixed vocabulary, names invented per database, or
# names, sizes and conventions that vary per database as real ones do (toolkit/chase_sql/world/naming.py)


@dataclass
class WorldReport:
    out: str
    split: str
    dbs: int
    questions: int
    by_difficulty: dict[str, int]
    misspelt: int
    redrawn: int
    seconds: float
    names: str = "split"


def gold_problem(conn: sqlite3.Connection, d: Draft) -> str | None:
    """Why a draft's gold query is unusable here (error, empty, NULL/zero only, tie at LIMIT), or None."""
    try:
        rows = conn.execute(d.sql).fetchall()
    except sqlite3.Error as exc:
        return f"fails: {exc}"
    if not rows or (len(rows) == 1 and all(v is None or v == 0 for v in rows[0])):
        return "empty or trivial result"
    if d.tie is not None:
        tie_sql, k = d.tie
        keys = conn.execute(tie_sql).fetchall()
        if len(keys) > k and keys[k - 1] == keys[k]:
            return "tie at the LIMIT"
    return None


def _questions(db: WorldDB, path: Path, n: int, rng: random.Random) -> tuple[list[tuple[str, Draft]], int]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out: list[tuple[str, Draft]] = []
    seen: set[str] = set()
    redrawn = 0
    try:
        for i in range(n):
            level = LEVELS[i % len(LEVELS)]
            for _ in range(MAX_DRAWS):
                d = draft(db, level, rng)
                if d is not None and d.sql not in seen and gold_problem(conn, d) is None:
                    break
                redrawn += 1
            else:
                raise RuntimeFailure(f"{path}: no usable {level} question after {MAX_DRAWS} draws")
            seen.add(d.sql)
            out.append((level, d))
    finally:
        conn.close()
    return out, redrawn


def write_world(out: str | Path, seed: int, dbs: int, split: str = "train", per_db: int = 10,
                only_misspelt: bool = False, names: str = "split") -> WorldReport:
    if split not in SPLITS:
        raise InputError(f"--split {split}: expected one of {', '.join(SPLITS)}")
    if names not in NAME_SOURCES:
        raise InputError(f"--names {names}: expected one of {', '.join(NAME_SOURCES)}")
    if dbs < 1 or per_db < 3:
        raise InputError("--dbs must be at least 1 and --questions-per-db at least 3 (one per difficulty)")
    start = time.perf_counter()
    out = Path(out)
    items, redrawn = [], 0
    for i in range(dbs):
        rng = random.Random(f"chase-world:{seed}:{split}:{i}" + ("" if names == "split" else f":{names}"))
        db = draw_schema(f"{split}_{i:03d}_{{}}", split, rng, names)
        db.db_id = db.db_id.format(re.sub(r"\W+", "_", db.tables[0].name).lower())
        fill_rows(db, rng)
        db_dir = out / "dev_databases" / db.db_id
        path = db_dir / f"{db.db_id}.sqlite"
        write_sqlite(db, path)
        write_descriptions(db, db_dir)
        drafts, r = _questions(db, path, per_db, rng)
        redrawn += r
        for level, d in drafts:
            item = {"question_id": len(items), "db_id": db.db_id, "question": d.question, "evidence": d.evidence,
                    "SQL": d.sql, "difficulty": level}
            if d.misspelling:
                item["misspelling"] = d.misspelling  # not a BIRD field; loaders ignore it
            items.append(item)
    if only_misspelt:  # the value-retrieval measurement: questions that write a value with a typo
        items = [it for it in items if "misspelling" in it]
    out.mkdir(parents=True, exist_ok=True)
    (out / "dev.json").write_text(json.dumps(items, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    levels = {lv: sum(it["difficulty"] == lv for it in items) for lv in ("simple", "moderate", "challenging")}
    return WorldReport(str(out), split, dbs, len(items), levels, sum("misspelling" in it for it in items), redrawn,
                       round(time.perf_counter() - start, 3), names)


def verify_world(root: str | Path, split: str = "dev", timeout: float = 30.0) -> dict:
    """Load a BIRD-layout world (the loader checks each file is SQLite) and run every gold query on its own
    database; the first failure is an InputError naming the file and the question."""
    from toolkit.chase_sql.data import load_dataset
    from toolkit.chase_sql.executor import Executor

    ds = load_dataset(root, split)
    executor = Executor(timeout=timeout)
    empty = 0
    try:
        for e in ds.examples:
            res = executor.run(e.db_path, e.gold)
            if res.error is not None:
                raise InputError(f"{e.db_path}: question {e.qid}: gold SQL fails on its database: {res.error}")
            empty += not res.rows
    finally:
        executor.close()
    return {"data": str(root), "split": split, "questions": len(ds.examples),
            "databases": len({e.db_id for e in ds.examples}), "empty_gold_results": empty}
