"""The text-to-SQL world generator: determinism, gold SQL that runs, split-disjoint vocabularies, bad inputs."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest

from toolkit.chase_sql.world import SPLITS, split_vocabulary, verify_world, write_world
from toolkit.core.errors import InputError

LEVELS = {"simple", "moderate", "challenging"}


@pytest.fixture(scope="session")
def worlds(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("worlds")
    return {split: write_world(base / split, seed=11, dbs=4, split=split, per_db=10).out for split in SPLITS}


def items(root) -> list[dict]:
    return json.loads((Path(root) / "dev.json").read_text(encoding="utf-8"))


def db_files(root) -> list[Path]:
    return sorted((Path(root) / "dev_databases").glob("*/*.sqlite"))


def names(root) -> set[str]:
    """Every table and column name of every database under root (lower case)."""
    return set().union(*map(db_names, db_files(root)))


def db_names(path: Path) -> set[str]:
    out = set()
    conn = sqlite3.connect(path)
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'"):
        out.add(table.lower())
        out |= {r[1].lower() for r in conn.execute(f"PRAGMA table_info({table})")}
    conn.close()
    return out


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def test_same_arguments_give_identical_files_and_another_seed_differs(tmp_path, worlds):
    again = write_world(tmp_path / "again", seed=11, dbs=4, split="test", per_db=10).out
    first = Path(worlds["test"])
    assert (Path(again) / "dev.json").read_bytes() == (first / "dev.json").read_bytes()
    pairs = list(zip(db_files(again), db_files(first), strict=True))
    assert len(pairs) == 4
    for a, b in pairs:
        assert dump(a) == dump(b) and a.read_bytes() == b.read_bytes()
        for csv_a in sorted((a.parent / "database_description").glob("*.csv")):
            assert csv_a.read_bytes() == (b.parent / "database_description" / csv_a.name).read_bytes()
    other = write_world(tmp_path / "other", seed=12, dbs=4, split="test", per_db=10).out
    assert (Path(other) / "dev.json").read_bytes() != (first / "dev.json").read_bytes()


def test_every_gold_query_runs_read_only_and_returns_rows(worlds):
    from toolkit.chase_sql.executor import Executor

    ex = Executor(timeout=5)
    for root in worlds.values():
        for it in items(root):
            db = Path(root) / "dev_databases" / it["db_id"] / f"{it['db_id']}.sqlite"
            res = ex.run(db, it["SQL"])
            assert res.error is None, (it["question_id"], res.error)
            assert res.rows, it
            assert not (len(res.rows) == 1 and all(v is None for v in res.rows[0])), it
    ex.close()


def test_train_validation_and_test_schema_vocabularies_are_disjoint(worlds):
    seen = {split: names(root) for split, root in worlds.items()}
    for split, got in seen.items():
        assert got <= split_vocabulary(split), got - split_vocabulary(split)
    assert not seen["train"] & seen["test"]
    assert not seen["train"] & seen["validation"]
    assert not seen["validation"] & seen["test"]
    # the pools themselves, not only what this seed drew
    assert not split_vocabulary("train") & split_vocabulary("test")
    assert not split_vocabulary("train") & split_vocabulary("validation")
    # and the databases themselves differ by split
    assert not {it["db_id"] for it in items(worlds["train"])} & {it["db_id"] for it in items(worlds["test"])}


def test_invented_names_are_new_per_database_never_another_splits_and_every_gold_query_runs(tmp_path):
    from toolkit.chase_sql.executor import Executor
    from toolkit.chase_sql.world.vocab import SQL_WORDS

    root = write_world(tmp_path / "r", seed=5, dbs=6, split="train", per_db=6, names="random").out
    again = write_world(tmp_path / "r2", seed=5, dbs=6, split="train", per_db=6, names="random").out
    assert (Path(root) / "dev.json").read_bytes() == (Path(again) / "dev.json").read_bytes()
    per_db = [db_names(path) for path in db_files(root)]
    assert len(per_db) == 6 and all(per_db)
    everything = set().union(*per_db)
    assert not everything & (split_vocabulary("test") | split_vocabulary("validation") | SQL_WORDS)
    # databases share few names: little can be learned by heart across them
    shared = [len(a & set().union(*(b for b in per_db if b is not a))) / len(a) for a in per_db]
    assert max(shared) < 0.3, shared
    ex = Executor(timeout=5)
    for it in items(root):
        res = ex.run(Path(root) / "dev_databases" / it["db_id"] / f"{it['db_id']}.sqlite", it["SQL"])
        assert res.error is None and res.rows, (it["question_id"], res.error)
    ex.close()
    with pytest.raises(InputError, match="--names"):
        write_world(tmp_path / "bad", seed=5, dbs=1, split="train", names="english")


def test_bird_fields_difficulty_levels_and_schemas(worlds):
    for root in worlds.values():
        qs = items(root)
        assert [it["question_id"] for it in qs] == list(range(len(qs)))
        for it in qs:
            assert {"question_id", "db_id", "question", "evidence", "SQL", "difficulty"} <= set(it)
            assert it["difficulty"] in LEVELS
        for db_id in {it["db_id"] for it in qs}:
            assert {it["difficulty"] for it in qs if it["db_id"] == db_id} == LEVELS
        assert len({it["SQL"] for it in qs}) == len(qs)
        for path in db_files(root):
            conn = sqlite3.connect(path)
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            assert 3 <= len(tables) <= 6
            fks = sum(len(conn.execute(f"PRAGMA foreign_key_list({t})").fetchall()) for t in tables)
            assert fks >= len(tables) - 1
            types = {r[2] for t in tables for r in conn.execute(f"PRAGMA table_info({t})")}
            assert types <= {"INTEGER", "REAL", "TEXT", "DATE"} and {"INTEGER", "TEXT"} <= types
            for t in tables:
                with (path.parent / "database_description" / f"{t}.csv").open(encoding="utf-8") as fh:
                    rows = list(csv.DictReader(fh))
                assert list(rows[0]) == ["original_column_name", "column_name", "column_description", "data_format",
                                         "value_description"]
                assert [r["original_column_name"] for r in rows] == [
                    r[1] for r in conn.execute(f"PRAGMA table_info({t})")]
            conn.close()
    everything = [it for root in worlds.values() for it in items(root)]
    sql = " ".join(it["SQL"] for it in everything)
    for construct in ("JOIN", "GROUP BY", "HAVING", "ORDER BY", "LIMIT", "NOT IN (SELECT", "> (SELECT AVG", "SUM("):
        assert construct in sql, construct


def test_misspelt_values_are_one_edit_away_and_hinted_in_the_evidence(worlds):
    misspelt = [it for root in worlds.values() for it in items(root) if "misspelling" in it]
    assert len(misspelt) >= 8
    for it in misspelt:
        m = it["misspelling"]
        assert edit_distance(m["written"], m["value"]) == 1
        assert m["written"] in it["question"] and m["value"] not in it["question"]
        assert f"'{m['value']}'" in it["SQL"] and m["written"] not in it["SQL"]
        assert f"{m['written']} refers to {m['column'].split('.')[1]}" in it["evidence"]
        assert m["value"] not in it["evidence"]


def test_existing_loader_schema_reader_and_evaluator_read_a_generated_world(worlds):
    from toolkit.chase_sql.data import load_dataset
    from toolkit.chase_sql.evaluation import evaluate_prediction
    from toolkit.chase_sql.executor import Executor
    from toolkit.chase_sql.schema import load_schema

    ds = load_dataset(worlds["validation"])
    assert ds.kind == "bird" and len(ds.examples) == 40
    schema = load_schema(ds.examples[0].db_path)
    assert 3 <= len(schema.tables) <= 6
    assert all(c.description for t in schema.tables for c in t.columns)
    assert any(c.foreign_key for t in schema.tables for c in t.columns)
    ex = Executor()
    e = ds.examples[0]
    right = evaluate_prediction({"qid": e.qid, "sql": e.gold}, e.gold, e.db_path, ex, "bird")
    wrong = evaluate_prediction({"qid": e.qid, "sql": "SELECT 12345"}, e.gold, e.db_path, ex, "bird")
    assert right["correct"] and not wrong["correct"] and right["gold_error"] is None
    assert verify_world(worlds["validation"])["questions"] == 40


def test_cli_writes_a_world_that_verifies(reason, tmp_path):
    out = tmp_path / "w"
    r = reason("chase-sql", "world", "--seed", "2", "--dbs", "2", "--split", "test", "--questions-per-db", "5",
               "--out", str(out))
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)
    assert rec["type"] == "sql.world" and rec["questions"] == 10 and rec["dbs"] == 2
    assert set(rec["by_difficulty"]) == LEVELS and all(rec["by_difficulty"].values())
    assert verify_world(out)["questions"] == 10


def test_bad_worlds_exit_2_with_one_line_naming_file_and_question(reason, tmp_path):
    root = Path(write_world(tmp_path / "w", seed=5, dbs=2, split="train", per_db=4).out)
    qs = items(root)
    # a gold query that fails on its own database
    broken = [dict(it) for it in qs]
    broken[5]["SQL"] = "SELECT no_such_column FROM " + broken[5]["SQL"].split("FROM ")[1].split()[0]
    (root / "dev.json").write_text(json.dumps(broken))
    db5 = root / "dev_databases" / qs[5]["db_id"] / f"{qs[5]['db_id']}.sqlite"
    r = reason("chase-sql", "world", "--verify", str(root))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"error: {db5}: question 5: gold SQL fails") and "no_such_column" in r.stderr
    assert "Traceback" not in r.stderr
    # a database file that is not SQLite: the loader itself refuses it (verify and eval alike)
    (root / "dev.json").write_text(json.dumps(qs))
    db0 = root / "dev_databases" / qs[0]["db_id"] / f"{qs[0]['db_id']}.sqlite"
    db0.write_text("not a database\n")
    with pytest.raises(InputError) as err:
        verify_world(root)
    assert str(err.value) == f"{db0}: not a SQLite database (question 0 of {root / 'dev.json'})"
    assert err.value.exit_code == 2
    # a world directory without dev.json
    (root / "dev.json").unlink()
    with pytest.raises(InputError) as err:
        verify_world(root)
    assert str(err.value) == f"{root / 'dev.json'}: no such question file for split 'dev'" and err.value.exit_code == 2
