"""SQLite query plans rendered as readable steps (for the query-plan chain-of-thought examples)."""

from __future__ import annotations

import re
import sqlite3

_RULES = [
    (re.compile(r"^SCAN (?:TABLE )?(\w+)(?: AS (\w+))?(?: USING (?:COVERING )?INDEX (\w+))?"),
     lambda m: f"scan every row of table {m.group(1)}" + (f" (through index {m.group(3)})" if m.group(3) else "")),
    (re.compile(r"^SEARCH (?:TABLE )?(\w+)(?: AS \w+)? USING (?:INTEGER PRIMARY KEY|PRIMARY KEY)(.*)"),
     lambda m: f"look up matching rows of table {m.group(1)} by its primary key {m.group(2).strip()}".strip()),
    (re.compile(r"^SEARCH (?:TABLE )?(\w+)(?: AS \w+)? USING (?:COVERING |AUTOMATIC )*INDEX (\w+) ?(.*)"),
     lambda m: f"look up rows of table {m.group(1)} through index {m.group(2)} {m.group(3)}".strip()),
    (re.compile(r"^USE TEMP B-TREE FOR (ORDER BY|GROUP BY|DISTINCT)"),
     lambda m: {"ORDER BY": "sort the rows for ORDER BY", "GROUP BY": "group the rows (GROUP BY) with a temporary tree",
                "DISTINCT": "remove duplicate rows (DISTINCT)"}[m.group(1)]),
    (re.compile(r"^(CORRELATED )?SCALAR SUBQUERY (\d+)"), lambda m: f"compute scalar subquery {m.group(2)}"),
    (re.compile(r"^(?:LIST )?SUBQUERY (\d+)"), lambda m: f"compute subquery {m.group(1)} (a list of values)"),
    (re.compile(r"^CO-ROUTINE (\w+)"), lambda m: f"compute the derived table {m.group(1)}"),
    (re.compile(r"^MATERIALIZE (\w+)"), lambda m: f"materialize the derived table {m.group(1)}"),
    (re.compile(r"^COMPOUND QUERY"), lambda m: "combine the results of several SELECTs"),
    (re.compile(r"^(UNION ALL|UNION USING TEMP B-TREE|EXCEPT USING TEMP B-TREE|INTERSECT USING TEMP B-TREE)"),
     lambda m: f"apply {m.group(1).split(' USING')[0]}"),
]


def plan_rows(conn: sqlite3.Connection, sql: str) -> list[tuple[int, int, str]]:
    return [(r[0], r[1], r[3]) for r in conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall()]


def describe(detail: str) -> str:
    for pattern, render in _RULES:
        m = pattern.match(detail)
        if m:
            return render(m)
    return detail.lower()


def render_plan(conn: sqlite3.Connection, sql: str) -> str:
    """Numbered steps, nested steps indented under their parent, plus what the final SELECT returns."""
    rows = plan_rows(conn, sql)
    depth = {0: -1}
    lines = []
    for node, parent, detail in rows:
        depth[node] = depth.get(parent, -1) + 1
        lines.append("  " * depth[node] + f"{len(lines) + 1}. {describe(detail)}")
    ops = [r[1] for r in conn.execute("EXPLAIN " + sql).fetchall()]
    extra = []
    if "AggStep" in ops or "AggStep1" in ops:
        extra.append("accumulate the aggregate functions")
    if any(op in ops for op in ("Lt", "Le", "Gt", "Ge", "Eq", "Ne")):
        extra.append("compare column values against the conditions")
    if "DecrJumpZero" in ops:
        extra.append("stop once the LIMIT is reached")
    for step in extra:
        lines.append(f"{len(lines) + 1}. {step}")
    lines.append(f"{len(lines) + 1}. output the selected columns")
    return "\n".join(lines)
