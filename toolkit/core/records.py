"""JSON Lines records: one JSON object per line with a `type` and a `schema` field.

Reading reports malformed input as `file:line: problem` (exit code 2) or, with
skip_bad, counts the bad lines so the caller can report them. Writing flushes each
record, so an interrupted run keeps everything written so far and `--resume` can
skip records already present by key.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from toolkit.core.errors import InputError, RuntimeFailure
from toolkit.core.provenance import check_input, label

STDIO = "-"


def make_record(type: str, schema: int = 1, **fields: Any) -> dict[str, Any]:
    """A record dict with `type` and `schema` first, then the given fields."""
    return {"type": type, "schema": schema, **fields}


def to_record(obj: Any) -> dict[str, Any]:
    """Turn a dataclass with class attributes RECORD_TYPE/SCHEMA into a record dict."""
    if not dataclasses.is_dataclass(obj):
        raise TypeError(f"{type(obj).__name__} is not a dataclass")
    return make_record(obj.RECORD_TYPE, getattr(obj, "SCHEMA", 1), **dataclasses.asdict(obj))


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


@dataclasses.dataclass
class BadLines:
    """Counts lines skipped with --skip-bad, with the first few messages kept for the report."""

    count: int = 0
    examples: list[str] = dataclasses.field(default_factory=list)

    def add(self, message: str) -> None:
        self.count += 1
        if len(self.examples) < 5:
            self.examples.append(message)

    def report(self) -> str | None:
        if not self.count:
            return None
        shown = "; ".join(self.examples)
        return f"skipped {self.count} bad line(s): {shown}"


def _open_text(path: str | Path) -> tuple[TextIO, str]:
    if str(path) == STDIO:
        return sys.stdin, "<stdin>"
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file")
    if p.is_dir():
        raise InputError(f"{p}: is a directory, expected a JSONL file")
    try:
        return p.open("r", encoding="utf-8"), str(p)
    except OSError as exc:
        raise InputError(f"{p}: cannot read ({exc.strerror})") from None


def read_records(
    path: str | Path,
    *,
    required: Iterable[str] = (),
    types: Iterable[str] | None = None,
    skip_bad: bool = False,
    bad: BadLines | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield records from a JSONL file or '-' (stdin), validating each line.

    `required` fields must be present; `types`, when given, restricts the `type` field.
    Records without a `type` are accepted only when `types` is None (plain JSONL input).
    """
    required = tuple(required)
    allowed = set(types) if types is not None else None
    bad = bad if bad is not None else BadLines()
    handle, name = _open_text(path)
    try:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = _parse_line(line, name, lineno, required, allowed)
            except InputError as exc:
                if not skip_bad:
                    raise
                bad.add(str(exc))
                continue
            check_input(record, name)
            yield record
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text ({exc.reason})") from None
    finally:
        if handle is not sys.stdin:
            handle.close()


def _parse_line(line: str, name: str, lineno: int, required: tuple[str, ...], allowed: set[str] | None):
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        hint = " (truncated line?)" if not line.endswith("\n") else ""
        raise InputError(f"{name}:{lineno}: malformed JSON{hint}: {exc.msg}") from None
    if not isinstance(record, dict):
        raise InputError(f"{name}:{lineno}: expected a JSON object, got {type(record).__name__}")
    if allowed is not None:
        rtype = record.get("type")
        if rtype is None:
            raise InputError(f"{name}:{lineno}: missing field 'type'")
        if rtype not in allowed:
            want = ", ".join(sorted(allowed))
            raise InputError(f"{name}:{lineno}: record type '{rtype}' is not one of: {want}")
    for field in required:
        if field not in record:
            raise InputError(f"{name}:{lineno}: missing field '{field}'")
    return record


def json_items(path: Path) -> Iterator[tuple[str, int, Any]]:
    """(where, number, object) for each item of a JSON array file or each line of a JSONL file (datasets as published).

    A malformed JSONL line comes as an InputError in place of the object, so callers can skip it or raise it; a
    missing or unreadable file and a malformed array raise at once.
    """
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{exc.lineno}: malformed JSON: {exc.msg}") from None
        for i, obj in enumerate(data, start=1):
            yield f"{path}: record {i}", i, obj
        return
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                yield f"{path}:{lineno}", lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                yield f"{path}:{lineno}", lineno, InputError(f"{path}:{lineno}: malformed JSON: {exc.msg}")


def load_records(path: str | Path, **kwargs: Any) -> list[dict[str, Any]]:
    return list(read_records(path, **kwargs))


class RecordWriter:
    """Writes records as JSONL to a file (append or truncate) or stdout, flushing each one."""

    def __init__(self, out: str | Path | None = None, *, append: bool = False) -> None:
        self.path = None if out in (None, STDIO) else Path(out)
        self.count = 0
        self._failed = False
        self._name = str(self.path) if self.path is not None else "stdout"
        if self.path is None:
            self._handle: TextIO = sys.stdout
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if append:
                drop_partial_last_line(self.path)
            self._handle = self.path.open("a" if append else "w", encoding="utf-8")
        except FileExistsError:
            raise InputError(f"{self.path}: cannot write (a parent is a file, not a folder)") from None
        except OSError as exc:
            raise InputError(f"{self.path}: cannot write ({exc.strerror})") from None

    def write(self, record: dict[str, Any]) -> None:
        try:
            self._handle.write(dumps(label(record)) + "\n")
            self._handle.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            self._failed = True
            raise RuntimeFailure(f"{self._name}: write failed after {self.count} record(s) ({exc.strerror})") from None
        self.count += 1

    def write_all(self, records: Iterable[dict[str, Any]]) -> None:
        for record in records:
            self.write(record)

    def close(self) -> None:
        if self._handle is sys.stdout:
            return
        try:
            self._handle.close()
        except OSError as exc:
            if not self._failed:  # a failed write was already reported; its buffered rest is lost anyway
                raise RuntimeFailure(
                    f"{self._name}: write failed after {self.count} record(s) ({exc.strerror})") from None

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def drop_partial_last_line(path: Path) -> None:
    """An interrupted writer can leave half a line; cut it so appended records stay parseable."""
    if not path.exists() or path.stat().st_size == 0:
        return
    data = path.read_bytes()
    if data.endswith(b"\n"):
        return
    path.write_bytes(data[: data.rfind(b"\n") + 1])


def existing_keys(path: str | Path | None, key: Callable[[dict[str, Any]], Any]) -> set[Any]:
    """Keys of the well-formed records already in `path` (for --resume); missing file = none."""
    if path is None or str(path) == STDIO or not Path(path).exists():
        return set()
    keys = set()
    for record in read_records(path, skip_bad=True):
        try:
            keys.add(key(record))
        except (KeyError, TypeError):
            continue
    return keys
