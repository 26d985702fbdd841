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


def table_aliases(sql: str) -> dict[str, str]:
    """alias (lower case) -> real table name; SQLite's plan names a table by its alias when it has one."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return {}
    return {t.alias.lower(): t.name for t in tree.find_all(exp.Table) if t.alias and t.name}


def has_limit(sql: str) -> bool:
    """Whether the query itself says LIMIT (SQLite also counts down for the implicit LIMIT 1 of a scalar
    subquery and for EXISTS, which must not read as a LIMIT of the query)."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return bool(re.search(r"\bLIMIT\b", sql, re.IGNORECASE))
    return any(True for _ in tree.find_all(exp.Limit))


def plan_rows(conn: sqlite3.Connection, sql: str) -> list[tuple[int, int, str]]:
    return [(r[0], r[1], r[3]) for r in conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall()]


_TABLE_AFTER = re.compile(r"^((?:SCAN|SEARCH) (?:TABLE )?)(\w+)( AS \w+)?")


def describe(detail: str, aliases: dict[str, str] | None = None) -> str:
    if aliases:  # "SCAN T1" -> "SCAN books": the step names the table, not the query's alias
        detail = _TABLE_AFTER.sub(lambda m: m.group(1) + aliases.get(m.group(2).lower(), m.group(2)), detail)
    for pattern, render in _RULES:
        m = pattern.match(detail)
        if m:
            return render(m)
    return detail.lower()


def render_plan(conn: sqlite3.Connection, sql: str) -> str:
    """Numbered steps, nested steps indented under their parent, plus what the final SELECT returns."""
    rows = plan_rows(conn, sql)
    aliases = table_aliases(sql)
    depth = {0: -1}
    lines = []
    for node, parent, detail in rows:
        depth[node] = depth.get(parent, -1) + 1
        lines.append("  " * depth[node] + f"{len(lines) + 1}. {describe(detail, aliases)}")
    ops = [r[1] for r in conn.execute("EXPLAIN " + sql).fetchall()]
    extra = []
    if "AggStep" in ops or "AggStep1" in ops:
        extra.append("accumulate the aggregate functions")
    if any(op in ops for op in ("Lt", "Le", "Gt", "Ge", "Eq", "Ne")):
        extra.append("compare column values against the conditions")
    if has_limit(sql):
        extra.append("stop once the LIMIT is reached")
    for step in extra:
        lines.append(f"{len(lines) + 1}. {step}")
    lines.append(f"{len(lines) + 1}. output the selected columns")
    return "\n".join(lines)
