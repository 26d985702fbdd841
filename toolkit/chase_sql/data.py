"""BIRD- and Spider-format datasets: questions with gold SQL and one SQLite file per database.

BIRD:   DIR/{split}.json (question_id, db_id, question, evidence, SQL, difficulty) and
        DIR/{split}_databases/<db_id>/<db_id>.sqlite (+ database_description/*.csv)
Spider: DIR/{split}.json (db_id, question, query) and DIR/database/<db_id>/<db_id>.sqlite
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from toolkit.core.errors import InputError


@dataclass
class Example:
    qid: str
    db_id: str
    question: str
    evidence: str
    gold: str
    difficulty: str
    db_path: Path


@dataclass
class Dataset:
    root: Path
    split: str
    kind: str  # "bird" or "spider"
    examples: list[Example]

    def db_path(self, db_id: str) -> Path:
        return find_db(self.root, self.split, self.kind, db_id)


def detect_kind(root: Path, split: str) -> str:
    if (root / f"{split}_databases").is_dir():
        return "bird"
    if (root / "database").is_dir():
        return "spider"
    raise InputError(f"{root}: neither a BIRD ({split}_databases/) nor a Spider (database/) directory")


def find_db(root: Path, split: str, kind: str, db_id: str) -> Path:
    base = root / (f"{split}_databases" if kind == "bird" else "database") / db_id
    for name in (f"{db_id}.sqlite", f"{db_id}.db"):
        if (base / name).is_file():
            return base / name
    raise InputError(f"{base}: no SQLite file for database '{db_id}'")


SQLITE_MAGIC = b"SQLite format 3\x00"


def _check_sqlite_files(qfile: Path, examples: list[Example]) -> None:
    """Each database file starts with SQLite's header; the first question using a bad one is named."""
    checked: set[Path] = set()
    for e in examples:
        if e.db_path in checked:
            continue
        checked.add(e.db_path)
        with e.db_path.open("rb") as fh:
            if fh.read(16) != SQLITE_MAGIC:
                raise InputError(f"{e.db_path}: not a SQLite database (question {e.qid} of {qfile})")


def load_dataset(root: str | Path, split: str = "dev", limit: int | None = None) -> Dataset:
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"{root}: no such dataset directory")
    kind = detect_kind(root, split)
    qfile = root / f"{split}.json"
    if not qfile.is_file():
        raise InputError(f"{qfile}: no such question file for split '{split}'")
    try:
        items = json.loads(qfile.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{qfile}:{exc.lineno}: malformed JSON: {exc.msg}") from None
    if not isinstance(items, list):
        raise InputError(f"{qfile}: expected a JSON list of questions")
    examples = []
    for i, item in enumerate(items):
        for key in ("db_id", "question"):
            if key not in item:
                raise InputError(f"{qfile}: item {i}: missing field '{key}'")
        gold = item.get("SQL", item.get("query"))
        if gold is None:
            raise InputError(f"{qfile}: item {i}: missing field 'SQL' (BIRD) or 'query' (Spider)")
        examples.append(Example(
            qid=str(item.get("question_id", i)), db_id=item["db_id"], question=item["question"].strip(),
            evidence=(item.get("evidence") or "").strip(), gold=gold.strip(),
            difficulty=item.get("difficulty", "unknown"), db_path=find_db(root, split, kind, item["db_id"])))
    if limit is not None:
        examples = examples[:limit]
    _check_sqlite_files(qfile, examples)
    return Dataset(root=root, split=split, kind=kind, examples=examples)
