"""Reading (x, y[, t, environment]) columns from JSONL, CSV or .npz, with file:line: field errors."""

from __future__ import annotations

import csv
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from toolkit.core.errors import InputError
from toolkit.core.records import STDIO, BadLines


@dataclass
class Columns:
    x: np.ndarray
    y: np.ndarray
    t: np.ndarray
    environment: np.ndarray | None
    source: str


def _number(value, where: str) -> float:
    if isinstance(value, bool) or value is None or value == "":
        raise InputError(f"{where}: not a number ({value!r})")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: not a number ({value!r})") from None


_stdin_text: list[str] = []


def _stdin():
    """Standard input as a fresh stream on every call: several variable pairs read the same piped data."""
    import io

    if not _stdin_text:
        _stdin_text.append(sys.stdin.read())
    return io.StringIO(_stdin_text[0])


def _rows_jsonl(path: str, bad: BadLines, skip_bad: bool):
    """(file:line, object) for each sample line; other record types (a fit, a header) are passed over."""
    handle = _stdin() if path == STDIO else open(path, encoding="utf-8")  # noqa: SIM115
    name = "<stdin>" if path == STDIO else path
    try:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{name}:{lineno}"
            try:
                record = json.loads(line)
                if not isinstance(record, dict):
                    raise InputError(f"{where}: expected a JSON object")
            except json.JSONDecodeError as exc:
                if not skip_bad:
                    raise InputError(f"{where}: malformed JSON: {exc.msg}") from None
                bad.add(f"{where}: malformed JSON")
                continue
            except InputError as exc:
                if not skip_bad:
                    raise
                bad.add(str(exc))
                continue
            if record.get("type") in (None, "metacausal.sample"):
                yield where, record
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text ({exc.reason})") from None
    finally:
        handle.close()


def _rows_csv(path: str):
    handle = _stdin() if path == STDIO else open(path, newline="", encoding="utf-8")  # noqa: SIM115
    name = "<stdin>" if path == STDIO else path
    try:
        reader = csv.DictReader(handle)
        for lineno, row in enumerate(reader, start=2):
            yield f"{name}:{lineno}", row
    finally:
        handle.close()


def _finite_or_bad(values: list[float], where: str, field: str) -> str | None:
    for v in values:
        if not math.isfinite(v):
            return f"{where}: field '{field}' is {v}"
    return None


def read_columns(path: str | Path, xcol: str = "x", ycol: str = "y", skip_bad: bool = False,
                 bad: BadLines | None = None) -> Columns:
    """x, y and optional t/environment; NaN or inf rows are errors, or dropped and counted with skip_bad."""
    path = str(path)
    bad = bad if bad is not None else BadLines()
    if path != STDIO:
        p = Path(path)
        if not p.exists():
            raise InputError(f"{p}: no such file")
        if p.is_dir():
            raise InputError(f"{p}: is a directory, expected JSONL, CSV or .npz data")
        if p.suffix == ".npz":
            return _read_npz(p, xcol, ycol, skip_bad, bad)
    rows = _rows_csv(path) if path.endswith(".csv") else _rows_jsonl(path, bad, skip_bad)
    xs, ys, ts, envs = [], [], [], []
    for where, row in rows:
        try:
            for field in (xcol, ycol):
                if field not in row:
                    raise InputError(f"{where}: missing field '{field}'")
            x = _number(row[xcol], f"{where}: field '{xcol}'")
            y = _number(row[ycol], f"{where}: field '{ycol}'")
            t = _number(row["t"], f"{where}: field 't'") if row.get("t") not in (None, "") else float(len(xs))
            env = _number(row["environment"], f"{where}: field 'environment'") \
                if row.get("environment") not in (None, "") else math.nan
            problem = _finite_or_bad([x, y, t], where, f"{xcol}/{ycol}/t")
            if problem:
                raise InputError(problem)
        except InputError as exc:
            if not skip_bad:
                raise
            bad.add(str(exc))
            continue
        xs.append(x)
        ys.append(y)
        ts.append(t)
        envs.append(env)
    env_arr = np.array(envs) if envs and not np.all(np.isnan(envs)) else None
    return Columns(np.array(xs), np.array(ys), np.array(ts), env_arr, path)


def _read_npz(p: Path, xcol: str, ycol: str, skip_bad: bool, bad: BadLines) -> Columns:
    try:
        data = np.load(p)
    except (OSError, ValueError) as exc:
        raise InputError(f"{p}: not a readable .npz file ({exc})") from None
    for field in (xcol, ycol):
        if field not in data:
            raise InputError(f"{p}: missing array '{field}' (has: {', '.join(data.files)})")
    try:
        x = np.asarray(data[xcol], dtype=np.float64).ravel()
        y = np.asarray(data[ycol], dtype=np.float64).ravel()
    except ValueError:
        raise InputError(f"{p}: arrays '{xcol}'/'{ycol}' are not numeric") from None
    if x.shape != y.shape:
        raise InputError(f"{p}: arrays '{xcol}' ({x.size}) and '{ycol}' ({y.size}) differ in length")
    t = np.asarray(data["t"], dtype=np.float64).ravel() if "t" in data else np.arange(x.size, dtype=np.float64)
    env = np.asarray(data["environment"], dtype=np.float64).ravel() if "environment" in data else None
    ok = np.isfinite(x) & np.isfinite(y) & np.isfinite(t)
    if not ok.all():
        first = int(np.nonzero(~ok)[0][0])
        if not skip_bad:
            raise InputError(f"{p}: row {first}: field '{xcol}/{ycol}/t' is not finite")
        for i in np.nonzero(~ok)[0]:
            bad.add(f"{p}: row {int(i)}: not finite")
    return Columns(x[ok], y[ok], t[ok], env[ok] if env is not None else None, str(p))


def check_fittable(cols: Columns, kmax: int, xcol: str, ycol: str) -> None:
    n = cols.x.size
    if n < 10 * kmax:
        raise InputError(f"{cols.source}: {n} usable samples; need at least 10 x --kmax = {10 * kmax}")
    for name, v in ((xcol, cols.x), (ycol, cols.y)):
        if np.ptp(v) == 0:
            raise InputError(f"{cols.source}: field '{name}' is constant ({v[0]}); no mechanism can be fitted")


def parse_pairs(text: str) -> list[tuple[str, str]]:
    """'a:b,c:d' -> [(a, b), (c, d)]."""
    pairs = []
    for part in (p.strip() for p in text.split(",")):
        cols = part.split(":")
        if len(cols) != 2 or not all(c.strip() for c in cols) or cols[0].strip() == cols[1].strip():
            raise InputError(f"--pairs {text!r}: expected comma-separated X:Y column pairs, e.g. a:b,c:d")
        pairs.append((cols[0].strip(), cols[1].strip()))
    if len({f"{a}:{b}" for a, b in pairs}) != len(pairs):
        raise InputError(f"--pairs {text!r}: a pair is given twice")
    return pairs
