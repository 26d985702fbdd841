"""Database schema for prompts: tables, columns, types, keys, sample values and BIRD descriptions.

Rendered as CREATE TABLE statements with one comment per column (description, value meaning,
examples). `filter_schema` keeps the relevant subset; `render(order=...)` shuffles for diversity.
"""

from __future__ import annotations

import csv
import io
import random
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.chase_sql.executor import open_database


@dataclass
class Column:
    name: str
    type: str
    primary_key: bool = False
    foreign_key: tuple[str, str] | None = None  # (table, column)
    description: str = ""
    value_description: str = ""
    samples: list[str] = field(default_factory=list)


@dataclass
class Table:
    name: str
    columns: list[Column]

    def column(self, name: str) -> Column | None:
        low = name.lower()
        return next((c for c in self.columns if c.name.lower() == low), None)


@dataclass
class Schema:
    tables: list[Table]

    def table(self, name: str) -> Table | None:
        low = name.lower()
        return next((t for t in self.tables if t.name.lower() == low), None)

    def column_names(self) -> list[str]:
        return [c.name for t in self.tables for c in t.columns]

    def render(self, rng: random.Random | None = None, samples: int = 3) -> str:
        """CREATE TABLE statements; with `rng`, tables and columns come in a shuffled order."""
        tables = list(self.tables)
        if rng is not None:
            rng.shuffle(tables)
        return "\n\n".join(_render_table(t, rng, samples) for t in tables)

    def subset(self, keep: dict[str, set[str]]) -> Schema:
        """Only the listed tables/columns (lower-case names); keys are always kept."""
        tables = []
        for t in self.tables:
            cols = keep.get(t.name.lower())
            if cols is None:
                continue
            chosen = [c for c in t.columns if c.name.lower() in cols or c.primary_key or c.foreign_key]
            tables.append(Table(t.name, chosen))
        return Schema(tables)


def _quote(name: str) -> str:
    return f"`{name}`" if not name.replace("_", "").isalnum() else name


def _render_table(t: Table, rng: random.Random | None, samples: int) -> str:
    cols = list(t.columns)
    if rng is not None:
        rng.shuffle(cols)
    lines = []
    for c in cols:
        decl = f"  {_quote(c.name)} {c.type or 'TEXT'}"
        if c.primary_key:
            decl += " PRIMARY KEY"
        notes = []
        if c.description and c.description.lower() != c.name.lower():
            notes.append(c.description)
        if c.value_description:
            notes.append(c.value_description)
        if c.samples and samples:
            notes.append("examples: " + ", ".join(repr(s) for s in c.samples[:samples]))
        lines.append((decl, " -- " + "; ".join(notes) if notes else ""))
    fks = [f"  FOREIGN KEY ({_quote(c.name)}) REFERENCES {_quote(c.foreign_key[0])}({_quote(c.foreign_key[1])})"
           for c in t.columns if c.foreign_key]
    body = []
    for i, (decl, note) in enumerate(lines):
        comma = "," if i < len(lines) - 1 or fks else ""
        body.append(decl + comma + note)
    body.extend(fk + ("," if i < len(fks) - 1 else "") for i, fk in enumerate(fks))
    return f"CREATE TABLE {_quote(t.name)} (\n" + "\n".join(body) + "\n);"


def read_text_any(path: Path) -> str:
    """Description CSVs come as UTF-8, UTF-8 with BOM or cp1252; read all of them."""
    data = path.read_bytes()
    for enc in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", "replace")


def read_descriptions(db_dir: Path) -> dict[str, dict[str, tuple[str, str]]]:
    """{table: {column: (description, value description)}} from database_description/*.csv."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    desc_dir = db_dir / "database_description"
    if not desc_dir.is_dir():
        return out
    for path in sorted(desc_dir.glob("*.csv")):
        reader = csv.DictReader(io.StringIO(read_text_any(path)))
        cols: dict[str, tuple[str, str]] = {}
        for row in reader:
            row = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items()}
            name = row.get("original_column_name") or row.get("column_name")
            if not name:
                continue
            desc = row.get("column_description") or row.get("column_name") or ""
            cols[name.lower()] = (" ".join(desc.split()), " ".join((row.get("value_description") or "").split()))
        out[path.stem.lower()] = cols
    return out


def _sample_values(conn: sqlite3.Connection, table: str, column: str, k: int) -> list[str]:
    try:
        rows = conn.execute(f'SELECT DISTINCT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL LIMIT {k}')
        return [str(r[0])[:40] for r in rows.fetchall()]
    except sqlite3.Error:
        return []


def load_schema(db_path: str | Path, samples: int = 3) -> Schema:
    db_path = Path(db_path)
    descriptions = read_descriptions(db_path.parent)
    conn = open_database(db_path)
    try:
        names = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")]
        tables = []
        for name in names:
            info = conn.execute(f'PRAGMA table_info("{name}")').fetchall()
            fks = {r[3].lower(): (r[2], r[4]) for r in conn.execute(f'PRAGMA foreign_key_list("{name}")')}
            desc = descriptions.get(name.lower(), {})
            cols = []
            for _cid, cname, ctype, _notnull, _default, pk in info:
                d, vd = desc.get(cname.lower(), ("", ""))
                fk = fks.get(cname.lower())
                if fk is not None and fk[1] is None:
                    fk = (fk[0], cname)
                cols.append(Column(cname, ctype or "", bool(pk), fk, d, vd,
                                   _sample_values(conn, name, cname, samples) if samples and not pk else []))
            tables.append(Table(name, cols))
    finally:
        conn.close()
    return Schema(tables)
