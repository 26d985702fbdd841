"""Checking an output path before a long job, so a bad one fails at once with a one-line error."""

from __future__ import annotations

import os
from pathlib import Path

from toolkit.core.errors import InputError


def check_writable(path: str | Path, option: str = "") -> None:
    """Make the parent folder if missing; an InputError naming `option` and the path when it cannot be written."""
    out = Path(path)
    where = f"{option} {out}" if option else str(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{where}: cannot write ({exc.strerror or exc})") from None
    if out.is_dir() or not os.access(out if out.exists() else out.parent, os.W_OK):
        raise InputError(f"{where}: cannot write ({'a folder' if out.is_dir() else 'permission denied'})")


def record_file_candidates(rel: str | Path, record_dir: object, base: Path) -> list[Path]:
    """Where a file a record names may be: itself when absolute, else under the record's `dir` field
    (the folder it was written to), then beside the JSONL file it was read from."""
    path = Path(str(rel))
    if path.is_absolute():
        return [path]
    return ([Path(str(record_dir)) / path] if record_dir else []) + [base / path]
