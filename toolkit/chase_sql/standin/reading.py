"""What the stand-in knows: only the text of the prompt (schema, retrieved values, question, hint).

The prompt's CREATE TABLE statements, their column comments (description; examples), the
"Relevant values found in the database" block, the question and the hint are parsed here.
Nothing else is opened: no dataset file, no database.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

_TABLE = re.compile(r"CREATE TABLE `?(\w+)`? \((.*?)\n\);", re.S)
_COLUMN = re.compile(r"\s+`?(\w+)`? (\w+)( PRIMARY KEY)?,?(?: -- (.*))?$")
_FK = re.compile(r"FOREIGN KEY \(`?(\w+)`?\) REFERENCES `?(\w+)`?\(`?(\w+)`?\)")


@dataclass
class Col:
    table: str
    name: str
    type: str
    pk: bool = False
    ref: tuple[str, str] | None = None
    description: str = ""
    examples: list[str] = field(default_factory=list)

    @property
    def numeric(self) -> bool:
        return self.type.upper() in ("INTEGER", "REAL", "NUMERIC", "INT", "FLOAT")

    @property
    def key(self) -> bool:
        return self.pk or self.ref is not None or self.name.lower().endswith("_id")


@dataclass
class Tab:
    name: str
    cols: list[Col]

    def col(self, name: str) -> Col | None:
        return next((c for c in self.cols if c.name.lower() == name.lower()), None)

    @property
    def pk(self) -> Col | None:
        return next((c for c in self.cols if c.pk), None)

    @property
    def label(self) -> Col | None:
        """The column that names a row: `name`, `<table>_name`, `title`, ... else the first text column."""
        texts = [c for c in self.cols if not c.key and not c.numeric and c.type.upper() != "DATE"]
        for want in ("name", "title"):
            hit = next((c for c in texts if c.name.lower() == want or c.name.lower().endswith("_" + want)), None)
            if hit:
                return hit
        named = [c for c in texts if "name" in c.description.lower()]
        return min(named or texts, key=lambda c: c.name.lower(), default=None)  # not the prompt's shuffled order


@dataclass
class Prompt:
    tables: list[Tab]
    question: str
    hint: str
    values: list[tuple[str, str, str]]  # (table, column, value) retrieved for this question

    def table(self, name: str) -> Tab | None:
        return next((t for t in self.tables if t.name.lower() == name.lower()), None)

    def columns(self) -> list[Col]:
        return [c for t in self.tables for c in t.cols]


def fold(text: str) -> str:
    """Lower case without accents: how a reader compares 'Zurich' with 'Zürich'."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(ch))


def last_line(prompt: str, label: str) -> str:
    found = re.findall(rf"^{label}: (.+)$", prompt, re.M)
    return found[-1].strip() if found else ""


def parse_tables(text: str) -> list[Tab]:
    tables = []
    for name, body in _TABLE.findall(text):
        cols, refs = [], {}
        for line in body.splitlines():
            fk = _FK.search(line)
            if fk:
                refs[fk.group(1).lower()] = (fk.group(2), fk.group(3))
                continue
            m = _COLUMN.match(line)
            if not m:
                continue
            notes = m.group(4) or ""
            shown = notes.split("examples:", 1)[1] if "examples:" in notes else ""
            examples = re.findall(r"'((?:[^'\\]|\\.)*)'", shown)
            desc = notes.split("examples:", 1)[0].strip(" ;")
            cols.append(Col(name, m.group(1), m.group(2), bool(m.group(3)), None, desc, examples))
        for c in cols:
            c.ref = refs.get(c.name.lower())
        tables.append(Tab(name, cols))
    return tables


def parse_values(prompt: str) -> list[tuple[str, str, str]]:
    if "Relevant values found in the database" not in prompt:
        return []
    block = prompt.split("Relevant values found in the database", 1)[1].split("\nQuestion:", 1)[0]
    out = []
    for line in block.splitlines()[1:]:
        m = re.match(r"(\w+)\.(\w+): (.*)$", line.strip())
        if m:
            for v in re.findall(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"", m.group(3)):
                out.append((m.group(1), m.group(2), v[0] or v[1]))
    return out


def read_prompt(prompt: str) -> Prompt:
    """The real task's part of a generator prompt (the worked examples of another database come before it)."""
    real = prompt.split("Now the real task.", 1)[-1]
    schema = real.split("Database schema:", 1)[-1]
    hint = last_line(real, "Hint")
    return Prompt(parse_tables(schema), last_line(real, "Question"), "" if hint == "none" else hint,
                  parse_values(real))
