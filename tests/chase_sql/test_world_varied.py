"""Varied naming (`world --names varied`): names, sizes and key conventions that vary as real databases do,
deterministic per seed, gold SQL that runs, and the hand-written foreign databases' styles covered but never
the foreign databases themselves."""

from __future__ import annotations

import json
import random
import re
import sqlite3
from pathlib import Path

import jinja2
import pytest

from tests.chase_sql.conftest import ROOT
from toolkit.chase_sql.world import split_vocabulary, verify_world, write_world
from toolkit.chase_sql.world.naming import abbreviate, plural, sql_name, styled
from toolkit.chase_sql.world.schema import draw_schema

FOREIGN = ROOT / "assets" / "chase_sql" / "foreign"
TRAIN_SEED, TRAIN_DBS = 41, 250  # the generator's training world (assets/chase_sql/regenerate.sh models)


@pytest.fixture(scope="session")
def varied(tmp_path_factory) -> Path:
    return Path(write_world(tmp_path_factory.mktemp("varied") / "w", seed=3, dbs=40, split="train", per_db=4,
                            names="varied").out)


def schemas(seed: int, n: int, split: str = "train"):
    """The schemas `write_world` draws for these arguments (same random stream, without rows or questions)."""
    return [draw_schema("x", split, random.Random(f"chase-world:{seed}:{split}:{i}:varied"), "varied")
            for i in range(n)]


def sqlite_schema(path: Path) -> dict[str, list[tuple[str, str]]]:
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: [(r[1], r[2]) for r in conn.execute(f"PRAGMA table_info({sql_name(t)})")] for t in tables}
    finally:
        conn.close()


def test_same_seed_same_files_and_every_gold_query_runs_through_the_loader(varied, tmp_path):
    again = Path(write_world(tmp_path / "again", seed=3, dbs=40, split="train", per_db=4, names="varied").out)
    assert (again / "dev.json").read_bytes() == (varied / "dev.json").read_bytes()
    for a in sorted((again / "dev_databases").glob("*/*.sqlite")):
        assert a.read_bytes() == (varied / "dev_databases" / a.parent.name / a.name).read_bytes()
    report = verify_world(varied)  # every gold query, read-only, through the loader and the executor
    assert report["questions"] == 160 and report["databases"] == 40 and report["empty_gold_results"] == 0
    other = Path(write_world(tmp_path / "other", seed=4, dbs=3, split="train", per_db=4, names="varied").out)
    assert json.loads((other / "dev.json").read_text())[0] != json.loads((varied / "dev.json").read_text())[0]


def test_gold_sql_runs_on_many_seeds_of_every_split(tmp_path):
    for split in ("train", "validation", "test"):
        for seed in range(6):
            write_world(tmp_path / f"{split}{seed}", seed=100 + seed, dbs=5, split=split, per_db=6, names="varied")
            assert verify_world(tmp_path / f"{split}{seed}")["empty_gold_results"] == 0


def test_names_sizes_and_keys_vary_as_real_databases_do():
    dbs = schemas(7, 200)
    sizes = [len(db.tables) for db in dbs]
    assert min(sizes) == 1 and max(sizes) >= 16 and 4 <= sum(sizes) / len(sizes) <= 9
    tables = [t.name for db in dbs for t in db.tables]
    columns = [c for db in dbs for t in db.tables for c in t.columns]
    names = [c.name for c in columns]
    share = {  # each convention is common enough to be learned, none is the rule
        "snake": sum(bool(re.fullmatch(r"[a-z]+(_[a-z0-9]+)+", n)) for n in names),
        "camel": sum(bool(re.fullmatch(r"[a-z]+([A-Z][a-z0-9]*)+", n)) for n in names),
        "Pascal": sum(bool(re.fullmatch(r"([A-Z][a-z0-9]+){2,}", n)) for n in names),
        "UPPER": sum(bool(re.fullmatch(r"[A-Z][A-Z0-9_]+", n)) for n in names),
        "spaced": sum(" " in n for n in names),
    }
    spaced = share.pop("spaced")  # rare in BIRD too (`Free Meal Count`): a few databases, never keys
    assert spaced >= 3 and all(v >= 0.05 * len(names) for v in share.values()), (spaced, share)
    assert max(share.values()) < 0.6 * len(names), share
    plural_tables = sum(t.entity.plural != t.entity.stem and t.name.lower().replace("_", "").endswith(
        t.entity.plural.replace(" ", "")[-3:]) for db in dbs for t in db.tables)
    assert 0.2 < plural_tables / len(tables) < 0.8
    fks = [c for c in columns if c.kind == "fk"]
    not_table_id = [c for c in fks if c.name.lower().replace("_", "") != f"{c.ref}id".lower().replace("_", "")]
    assert len(not_table_id) > 0.5 * len(fks)
    assert sum(c.name != c.ref_col for c in fks) > 0.1 * len(fks)  # role names: `ownerId` -> the parent's key
    assert any(c.name.endswith(("_no", "_code")) for c in columns if c.kind == "pk")
    assert {c.sql_type for c in columns if c.kind == "date"} == {"DATE", "TEXT"}
    assert {c.sql_type for c in columns} >= {"INTEGER", "REAL", "TEXT"}
    abbreviated = [c for c in columns if c.text and abbreviate(c.text.split()[0]) in c.name.lower()
                   and c.text.split()[0] not in c.name.lower()]
    assert len(abbreviated) > 0.02 * len(columns)


def test_questions_say_words_not_identifiers_and_synonyms_come_with_a_hint(varied):
    items = json.loads((varied / "dev.json").read_text())
    idents = {}
    for db in (varied / "dev_databases").iterdir():
        idents[db.name] = {c for cols in sqlite_schema(db / f"{db.name}.sqlite").values() for c, _ in cols
                           if re.search(r"[A-Z_ ]", c)}  # names a question could not write as plain words
    verbatim = sum(any(n in it["question"] for n in idents[it["db_id"]]) for it in items)
    assert verbatim < 0.05 * len(items)
    hinted = [it for it in items if re.search(r"\b\w[\w ]* refers to `?[\w ]+`?(;|$)", it["evidence"])]
    assert len(hinted) > 0.1 * len(items)


def test_synonym_of_a_column_is_always_hinted():
    from toolkit.chase_sql.world.questions import Mention

    for db in schemas(9, 200):
        col = next((c for t in db.tables for c in t.columns if c.said and c.said != c.phrase), None)
        if col is not None:
            m = Mention(db, random.Random(0))
            assert m.say(col) == col.said and f"{col.said} refers to {col.q}" in m.evidence()
            return
    raise AssertionError("no synonym drawn in 200 databases")


def test_foreign_styles_are_covered_but_no_foreign_database_is_drawn():
    foreign = {db.name: sqlite_schema(db / f"{db.name}.sqlite")
               for db in sorted((FOREIGN / "dev_databases").iterdir())}
    assert len(foreign) == 3
    training = schemas(TRAIN_SEED, TRAIN_DBS)
    for db in training:  # no training database holds most of a foreign database's tables
        names = {t.name.lower() for t in db.tables}
        for fname, ftables in foreign.items():
            assert len(names & {t.lower() for t in ftables}) < 3, (fname, sorted(names))
    # the foreign conventions: plural snake_case tables keyed `<singular>_id`, a `name`/`title` column,
    # foreign keys named as the key they reference, dates as TEXT
    like_foreign = [db for db in training if all(
        t.name == plural(t.entity.stem).replace(" ", "_") and t.pk.name == styled(t.entity.stem.split() + ["id"],
                                                                                  "snake")
        and t.label.name in ("name", "title") for t in db.tables)
        and any(c.kind == "fk" and c.name == c.ref_col for t in db.tables for c in t.columns)
        and any(c.kind == "date" and c.sql_type == "TEXT" for t in db.tables for c in t.columns)]
    assert len(like_foreign) >= 3


def test_train_split_never_uses_another_splits_names():
    others = split_vocabulary("test") | split_vocabulary("validation")
    for db in schemas(11, 150):
        for t in db.tables:
            assert t.name.lower() not in others
            assert all(c.name.lower() not in others for c in t.columns), t.name


def test_compact_template_keeps_quoted_names_whole_and_shows_the_referenced_key():
    from toolkit.chase_sql.learned.template import COMPACT_CHAT_TEMPLATE, SUPERSEDED

    schema = ("CREATE TABLE `Pet Owners` (\n  `Owner No` INTEGER PRIMARY KEY,\n  name TEXT\n);\n"
              "CREATE TABLE pets (\n  id INTEGER PRIMARY KEY,\n  ownerRef INTEGER,\n"
              "  FOREIGN KEY (ownerRef) REFERENCES `Pet Owners`(`Owner No`)\n);")
    env = jinja2.Environment()
    text = env.from_string(COMPACT_CHAT_TEMPLATE).render(
        messages=[{"role": "user", "content": "## Task: x\nNow the real task.\n\n" + schema}], bos_token="",
        add_generation_prompt=False)
    assert "`Pet Owners`(`Owner No`, name)" in text
    assert "pets(id, ownerRef, ownerRef->`Pet Owners`.`Owner No`)" in text
    assert COMPACT_CHAT_TEMPLATE not in SUPERSEDED
    # the shipped generator was saved with the first rendering: `train-generator --init` continues it on this one
    shipped = (ROOT / "assets" / "chase_sql" / "generator" / "chat_template.jinja").read_text(encoding="utf-8")
    assert SUPERSEDED[shipped] == "compact"


def test_cli_writes_a_varied_world_and_rejects_an_unknown_name_source(reason, tmp_path):
    r = reason("chase-sql", "world", "--seed", "2", "--dbs", "3", "--split", "train", "--names", "varied",
               "--questions-per-db", "4", "--out", str(tmp_path / "w"))
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)
    assert rec["names"] == "varied" and rec["questions"] == 12 and verify_world(tmp_path / "w")["questions"] == 12
    bad = reason("chase-sql", "world", "--seed", "2", "--dbs", "1", "--names", "english", "--out", str(tmp_path / "b"))
    assert bad.returncode == 2 and "--names english" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
