"""The hand-written foreign databases: BIRD layout, ordinary English names, foreign keys, answerable questions."""

from __future__ import annotations

import json
import sqlite3

from tests.chase_sql.conftest import ROOT
from toolkit.chase_sql.data import load_dataset
from toolkit.chase_sql.executor import Executor
from toolkit.chase_sql.schema import load_schema

FOREIGN = ROOT / "assets" / "chase_sql" / "foreign"


def test_foreign_set_is_bird_layout_with_keys_and_answerable_questions():
    items = json.loads((FOREIGN / "dev.json").read_text())
    assert {tuple(sorted(i)) for i in items} == {("SQL", "db_id", "difficulty", "evidence", "question",
                                                  "question_id")}
    ds = load_dataset(FOREIGN)
    by_db: dict[str, int] = {}
    for e in ds.examples:
        by_db[e.db_id] = by_db.get(e.db_id, 0) + 1
    assert sorted(by_db) == ["clinic", "school", "shop"] and all(n >= 10 for n in by_db.values()), by_db
    ex = Executor()
    for db in by_db:
        path = FOREIGN / "dev_databases" / db / f"{db}.sqlite"
        tables = load_schema(path).tables
        assert 3 <= len(tables) <= 6
        conn = sqlite3.connect(path)
        fks = sum(len(conn.execute(f"PRAGMA foreign_key_list({t.name})").fetchall()) for t in tables)
        conn.close()
        assert fks >= 3, db
        assert all((FOREIGN / "dev_databases" / db / "database_description" / f"{t.name}.csv").is_file()
                   for t in tables)
    for e in ds.examples:  # every gold query runs and answers something
        r = ex.run(e.db_path, e.gold)
        assert r.error is None and r.rows, (e.qid, e.gold, r.error)
    ex.close()
