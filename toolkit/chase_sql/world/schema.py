"""Random relational schemas with rows: 3-6 tables joined by foreign keys, typed columns, written as SQLite.

Table 1 references table 0 and table 2 references table 1 (so three-table join paths exist); later
tables reference a random earlier one, some a second one too. Written in BIRD layout: the SQLite
file and one description CSV per table.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.chase_sql.demo import write_description_csvs
from toolkit.chase_sql.world import values as V
from toolkit.chase_sql.world.naming import VariedNames, sql_name
from toolkit.chase_sql.world.vocab import ATTRIBUTES, ENTITIES, Attribute, Entity, InventedNames

TEXT_KINDS = ("city", "country", "status", "color", "tier", "person")
NUMBER_KINDS = ("year", "count", "rating", "price", "weight", "amount")
_FORMAT = {"INTEGER": "integer", "REAL": "real", "TEXT": "text", "DATE": "date"}


@dataclass
class WColumn:
    name: str
    sql_type: str
    kind: str              # pk, fk, label, or an attribute kind
    ref: str | None = None  # referenced table of a foreign key
    text: str | None = None  # the words the name stands for (`qty` -> quantity); default: the name's words
    said: str | None = None  # what questions call it (a synonym of `text`, with a hint); default: `text`
    ref_col: str | None = None  # referenced column of a foreign key; default: the same name

    @property
    def phrase(self) -> str:
        return self.text or self.name.replace("_", " ")

    @property
    def q(self) -> str:
        """The name as SQL writes it."""
        return sql_name(self.name)


@dataclass
class WTable:
    entity: Entity
    columns: list[WColumn]
    rows: list[tuple] = field(default_factory=list)
    ident: str | None = None  # the table's name when it is not the entity's stem (varied names)

    @property
    def name(self) -> str:
        return self.ident or self.entity.stem

    @property
    def q(self) -> str:
        return sql_name(self.name)

    @property
    def pk(self) -> WColumn:
        return self.columns[0]

    @property
    def label(self) -> WColumn:
        return self.columns[1]

    def of_kind(self, *kinds: str) -> list[WColumn]:
        return [c for c in self.columns if c.kind in kinds]

    def values(self, col: WColumn) -> list:
        i = self.columns.index(col)
        return [r[i] for r in self.rows]


@dataclass
class WorldDB:
    db_id: str
    tables: list[WTable]

    @property
    def varied(self) -> bool:
        """Drawn with varied names (`--names varied`): its questions take more wordings and templates."""
        return any(t.ident for t in self.tables)

    def table(self, name: str) -> WTable:
        return next(t for t in self.tables if t.name == name)

    def children(self, parent: WTable) -> list[tuple[WTable, WColumn]]:
        return [(t, c) for t in self.tables for c in t.of_kind("fk") if c.ref == parent.name]


def _attributes(rng: random.Random) -> list[Attribute]:
    by_kind = {a.kind: a for a in ATTRIBUTES}
    kinds = [rng.choice(TEXT_KINDS), rng.choice(NUMBER_KINDS)]
    rest = [a.kind for a in ATTRIBUTES if a.kind not in kinds]
    kinds += rng.sample(rest, rng.randint(0, 2))
    return [by_kind[k] for k in kinds]


def draw_schema(db_id: str, split: str, rng: random.Random, names: str = "split") -> WorldDB:
    """`names`: "split" takes the split's fixed vocabulary; "random" invents this database's own names;
    "varied" draws this database's naming conventions and its size (1-20 tables) as real databases vary."""
    if names == "varied":
        return draw_varied_schema(db_id, split, rng)
    invented = InventedNames(rng, split) if names == "random" else None
    n_tables = rng.randint(3, 6)
    entities = ([invented.entity() for _ in range(n_tables)] if invented
                else rng.sample(list(ENTITIES[split]), n_tables))
    tables = []
    for i, ent in enumerate(entities):
        cols = [WColumn(f"{ent.stem}_id", "INTEGER", "pk"), WColumn(f"{ent.stem}_name", "TEXT", "label")]
        parents = [] if i == 0 else [tables[i - 1] if i <= 2 else rng.choice(tables)]
        if i >= 2 and rng.random() < 0.3:
            parents += rng.sample([t for t in tables if t not in parents], 1)
        cols += [WColumn(p.pk.name, "INTEGER", "fk", ref=p.name) for p in parents]
        cols += [WColumn(invented.column() if invented else rng.choice(a.words[split]), a.sql_type, a.kind)
                 for a in _attributes(rng)]
        tables.append(WTable(ent, cols))
    return WorldDB(db_id, tables)


# 1-20 tables, most databases 3-10 (BIRD's dev databases hold 3 to 13 tables, a few training ones far more)
TABLE_COUNTS = (1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 6, 6, 7, 7, 8, 9, 10, 11, 12, 14, 16, 18, 20)


def draw_varied_schema(db_id: str, split: str, rng: random.Random) -> WorldDB:
    names = VariedNames(rng, split)
    n_tables = rng.choice(TABLE_COUNTS)
    tables: list[WTable] = []
    for i in range(n_tables):
        ent, ident = names.entity()
        pk, label = names.key(ent.stem), names.label(ent.stem, ent.label)
        cols = [WColumn(pk, "INTEGER", "pk", text=f"{ent.stem} id"), WColumn(label, "TEXT", "label",
                                                                              text=f"{ent.stem} name")]
        parents = [] if i == 0 else [tables[i - 1] if i <= 2 else rng.choice(tables)]
        if i >= 3 and rng.random() < 0.15:
            parents = []  # a table that nothing joins to, as lookup tables often are
        if i >= 2 and parents and rng.random() < 0.3:
            parents += rng.sample([t for t in tables if t not in parents], 1)
        for p in parents:
            fk, words = names.foreign_key(p.entity.stem, p.pk.name, {c.name.lower() for c in cols})
            cols.append(WColumn(fk, "INTEGER", "fk", ref=p.name, text=words, ref_col=p.pk.name))
        for a in _attributes(rng) + [rng.choice(ATTRIBUTES) for _ in range(rng.choice((0, 0, 1, 2)))]:
            ident_c, text, said = names.column(a.kind, {c.name.lower() for c in cols})
            sql_type = a.sql_type if a.kind != "date" else rng.choice(("DATE", "TEXT"))
            cols.append(WColumn(ident_c, sql_type, a.kind, text=text, said=said))
        tables.append(WTable(ent, cols, ident=ident))
    return WorldDB(db_id, tables)


def fill_rows(db: WorldDB, rng: random.Random) -> None:
    choices = V.text_choices(rng)
    for t in db.tables:
        n = rng.randint(8, 14) if not t.of_kind("fk") else rng.randint(20, 50)
        labels: list[str] = []
        while len(labels) < n:
            name = V.label_value(t.entity.label, rng)
            if name not in labels:
                labels.append(name)
        used = {c.ref: rng.sample(range(1, len(db.table(c.ref).rows) + 1),
                                  max(2, int(0.75 * len(db.table(c.ref).rows)))) for c in t.of_kind("fk")}
        for i in range(n):
            row = []
            for c in t.columns:
                if c.kind == "pk":
                    row.append(i + 1)
                elif c.kind == "label":
                    row.append(labels[i])
                elif c.kind == "fk":
                    row.append(rng.choice(used[c.ref]))
                else:
                    row.append(V.attribute_value(c.kind, rng, choices))
            t.rows.append(tuple(row))


def create_sql(t: WTable) -> str:
    decls = [f"{c.q} {c.sql_type}" + (" PRIMARY KEY" if c.kind == "pk" else "") for c in t.columns]
    decls += [f"FOREIGN KEY ({c.q}) REFERENCES {sql_name(c.ref)}({sql_name(c.ref_col or c.name)})"
              for c in t.of_kind("fk")]
    return f"CREATE TABLE {t.q} (" + ", ".join(decls) + ")"


def write_sqlite(db: WorldDB, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path)
    for t in db.tables:
        conn.execute(create_sql(t))
        conn.executemany(f"INSERT INTO {t.q} VALUES ({','.join('?' * len(t.columns))})", t.rows)
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


def _description(t: WTable, c: WColumn) -> tuple[str, str]:
    """(column description, value description) as BIRD writes them."""
    if c.kind == "pk":
        return f"unique id of the {t.entity.stem}", ""
    if c.kind == "fk":
        return f"the {c.text if c.text else c.ref} this {t.entity.stem} belongs to", ""
    if c.kind == "label":
        return f"name of the {t.entity.stem}", ""
    if c.kind == "flag":
        return f"{c.phrase} of the {t.entity.stem}", "1: yes; 0: no"
    if c.kind == "date":
        return f"{c.phrase} of the {t.entity.stem}", "YYYY-MM-DD"
    return f"{c.phrase} of the {t.entity.stem}", ""


def write_descriptions(db: WorldDB, db_dir: Path) -> None:
    rows = {t.name: [(c.name, c.phrase, _description(t, c)[0], _FORMAT[c.sql_type], _description(t, c)[1])
                     for c in t.columns] for t in db.tables}
    write_description_csvs(db_dir, rows)
