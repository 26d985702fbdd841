"""`cogcom.item` records: id, image (path relative to the items file), question, answer, kind, gold boxes."""

from __future__ import annotations

from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, read_records

REQUIRED = ("id", "image", "question", "answer")


def check_item(record: dict, where: str, base: Path) -> dict:
    for name in REQUIRED:
        value = record.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise InputError(f"{where}: field '{name}' is missing or empty")
    path = Path(record["image"])
    return {**record, "image_path": str(path if path.is_absolute() else base / path)}


def read_items(path: str, skip_bad: bool = False, bad: BadLines | None = None):
    """Items of a JSONL file (or '-'); each gains `image_path`, resolved against the file's folder."""
    bad = bad if bad is not None else BadLines()
    name = "<stdin>" if path == "-" else path
    base = Path.cwd() if path == "-" else Path(path).parent
    for i, rec in enumerate(read_records(path, skip_bad=skip_bad, bad=bad), start=1):
        try:
            yield check_item(rec, f"{name}:{i}", base)
        except InputError as exc:
            if not skip_bad:
                raise
            bad.add(str(exc))
