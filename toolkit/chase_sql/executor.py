"""Safe execution of model-written SQL on SQLite.

Three independent guards keep the user's database untouched:
1. sqlglot parses the text; only a single SELECT (or WITH ... SELECT / set operation) passes.
2. The connection is opened read-only through a URI (`mode=ro`) with `PRAGMA query_only`.
3. An authorizer denies every write, ATTACH/DETACH, PRAGMA and transaction action.
A progress handler aborts queries that run past the time limit; at most `row_cap` rows are fetched.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

logging.getLogger("sqlglot").setLevel(logging.ERROR)

DEFAULT_TIMEOUT = 10.0
DEFAULT_ROW_CAP = 10_000

_ALLOWED_ACTIONS = {
    sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE,
}


class UnsafeSQL(ValueError):
    """A statement that is not a single read-only query."""


@dataclass
class ExecResult:
    rows: list[tuple] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    error: str | None = None
    timed_out: bool = False
    truncated: bool = False
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None

    def status(self) -> str:
        if self.timed_out:
            return "timeout"
        if self.error is not None:
            return "error"
        return "empty" if not self.rows else "ok"

    def to_json(self, max_rows: int = 5) -> dict[str, Any]:
        return {"status": self.status(), "error": self.error, "n_rows": len(self.rows),
                "columns": self.columns, "rows": [list(map(_jsonable, r)) for r in self.rows[:max_rows]],
                "truncated": self.truncated}


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, float) and value != value:  # NaN is not JSON
        return None
    return value


def check_read_only(sql: str) -> None:
    """Raise UnsafeSQL unless `sql` is exactly one SELECT/WITH query (checked with sqlglot)."""
    import sqlglot
    from sqlglot import exp

    text = (sql or "").strip().rstrip(";").strip()
    if not text:
        raise UnsafeSQL("empty SQL")
    try:
        statements = [s for s in sqlglot.parse(text, read="sqlite") if s is not None]
    except sqlglot.errors.SqlglotError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UnsafeSQL(f"cannot parse SQL: {first}") from None
    except RecursionError:  # sqlglot's recursive descent on a deeply nested model-written query
        raise UnsafeSQL("cannot parse SQL: nested too deeply") from None
    if len(statements) != 1:
        raise UnsafeSQL(f"expected one statement, got {len(statements)}")
    tree = statements[0]
    if not isinstance(tree, exp.Query):
        raise UnsafeSQL(f"only SELECT/WITH queries may run, got {tree.key.upper()}")
    banned = (exp.Insert, exp.Update, exp.Delete, exp.Drop, exp.Create, exp.Alter, exp.Command, exp.Pragma,
              exp.Attach, exp.Detach, exp.Merge, exp.TruncateTable)
    for node in tree.walk():
        if isinstance(node, banned):
            raise UnsafeSQL(f"only read-only queries may run, found {node.key.upper()}")


def _authorizer(action: int, *_args: Any) -> int:
    return sqlite3.SQLITE_OK if action in _ALLOWED_ACTIONS else sqlite3.SQLITE_DENY


def connect_read_only(db_path: str | Path) -> sqlite3.Connection:
    path = Path(db_path).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such database file")
    conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, check_same_thread=False)
    conn.execute("PRAGMA query_only = ON")
    conn.text_factory = lambda b: b.decode("utf-8", "replace")
    conn.set_authorizer(_authorizer)
    return conn


def open_database(db_path: str | Path) -> sqlite3.Connection:
    """A read-only connection for reading the user's catalogue; a missing or non-SQLite file is an InputError."""
    from toolkit.core.errors import InputError

    try:
        conn = connect_read_only(db_path)
        conn.set_authorizer(None)  # our own catalogue queries, including PRAGMA table_info
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except FileNotFoundError:
        raise InputError(f"{db_path}: no such database file") from None
    except sqlite3.Error as exc:
        raise InputError(f"{db_path}: not a readable SQLite database ({exc})") from None
    return conn


def execute_sql(db_path: str | Path, sql: str, *, timeout: float = DEFAULT_TIMEOUT, row_cap: int = DEFAULT_ROW_CAP,
                conn: sqlite3.Connection | None = None) -> ExecResult:
    """Run one model-written query safely; never raises for bad SQL (the error is in the result)."""
    start = time.perf_counter()
    try:
        check_read_only(sql)
    except UnsafeSQL as exc:
        return ExecResult(error=f"refused: {exc}", seconds=time.perf_counter() - start)
    own = conn is None
    try:
        conn = conn or connect_read_only(db_path)
    except (sqlite3.Error, FileNotFoundError) as exc:
        return ExecResult(error=f"cannot open database: {exc}", seconds=time.perf_counter() - start)
    deadline = time.perf_counter() + timeout
    conn.set_progress_handler(lambda: 1 if time.perf_counter() > deadline else 0, 1000)
    try:
        cursor = conn.execute(sql.strip().rstrip(";"))
        rows = cursor.fetchmany(row_cap + 1)
        columns = [d[0] for d in cursor.description or []]
        truncated = len(rows) > row_cap
        return ExecResult(rows=[tuple(r) for r in rows[:row_cap]], columns=columns, truncated=truncated,
                          seconds=time.perf_counter() - start)
    except sqlite3.OperationalError as exc:
        if "interrupted" in str(exc) and time.perf_counter() > deadline:
            return ExecResult(error=f"timeout after {timeout:g} s", timed_out=True,
                              seconds=time.perf_counter() - start)
        return ExecResult(error=str(exc), seconds=time.perf_counter() - start)
    except (sqlite3.Error, ValueError, OverflowError) as exc:
        return ExecResult(error=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - start)
    finally:
        conn.set_progress_handler(None, 0)
        if own:
            conn.close()


class Executor:
    """Keeps one read-only connection per database and a cache of results by SQL text."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, row_cap: int = DEFAULT_ROW_CAP) -> None:
        self.timeout = timeout
        self.row_cap = row_cap
        self._conns: dict[str, sqlite3.Connection] = {}
        self._cache: dict[tuple[str, str], ExecResult] = {}

    def run(self, db_path: str | Path, sql: str) -> ExecResult:
        key = (str(db_path), sql)
        if key in self._cache:
            return self._cache[key]
        conn = self._conns.get(str(db_path))
        if conn is None:
            try:
                conn = connect_read_only(db_path)
            except (sqlite3.Error, FileNotFoundError) as exc:
                return ExecResult(error=f"cannot open database: {exc}")
            self._conns[str(db_path)] = conn
        result = execute_sql(db_path, sql, timeout=self.timeout, row_cap=self.row_cap, conn=conn)
        self._cache[key] = result
        return result

    def close(self) -> None:
        for conn in self._conns.values():
            conn.close()
        self._conns.clear()
