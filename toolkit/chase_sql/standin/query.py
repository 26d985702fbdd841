"""A small query under construction: parts hold columns, rendering adds the joins along foreign keys."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from toolkit.chase_sql.standin.reading import Col, Prompt

Expr = tuple  # pieces: str (SQL text) or Col (a column reference, qualified when the query joins)


def cols_of(expr: Expr) -> list[Col]:
    return [p for p in expr if isinstance(p, Col)]


@dataclass
class Query:
    base: str
    select: list[Expr] = field(default_factory=list)
    distinct: bool = False
    where: list[Expr] = field(default_factory=list)
    group: list[Expr] = field(default_factory=list)
    having: Expr | None = None
    order: Expr | None = None
    descending: bool = False
    limit: int | None = None
    extra_tables: set[str] = field(default_factory=set)

    def tables(self) -> list[str]:
        parts = [*self.select, *self.where, *self.group, self.having or (), self.order or ()]
        seen = [self.base]
        for t in [c.table for e in parts for c in cols_of(e)] + sorted(self.extra_tables):
            if t not in seen:
                seen.append(t)
        return seen

    def render(self, p: Prompt) -> str:
        tables = self.tables()
        joins = join_clause(p, tables)
        qualified = len(joins) > 1

        def text(e: Expr) -> str:
            return "".join(x if isinstance(x, str) else (f"{x.table}.{x.name}" if qualified else x.name) for x in e)

        sql = "SELECT " + ("DISTINCT " if self.distinct else "") + ", ".join(text(e) for e in self.select)
        sql += " FROM " + joins[0] + "".join(f" JOIN {j}" for j in joins[1:])
        if self.where:
            sql += " WHERE " + " AND ".join(dict.fromkeys(text(e) for e in self.where))  # a value named twice
        if self.group:
            sql += " GROUP BY " + ", ".join(text(e) for e in self.group)
        if self.having:
            sql += " HAVING " + text(self.having)
        if self.order:
            sql += " ORDER BY " + text(self.order) + (" DESC" if self.descending else " ASC")
        if self.limit is not None:
            sql += f" LIMIT {self.limit}"
        return sql


def _edges(p: Prompt) -> dict[str, list[tuple[str, str]]]:
    """table -> [(neighbour, ON condition)] for every foreign key of the prompt's schema, both directions."""
    out: dict[str, list[tuple[str, str]]] = {t.name: [] for t in p.tables}
    for c in p.columns():
        if c.ref and c.ref[0] in out and c.ref[0] != c.table:
            on = f"{c.table}.{c.name} = {c.ref[0]}.{c.ref[1]}"
            out[c.table].append((c.ref[0], on))
            out[c.ref[0]].append((c.table, on))
    return out


def join_clause(p: Prompt, tables: list[str]) -> list[str]:
    """FROM items: the first table, then `other ON ...` along the shortest foreign-key paths to each table."""
    edges = _edges(p)
    have, items = {tables[0]}, [tables[0]]
    for target in tables[1:]:
        if target in have:
            continue
        prev: dict[str, tuple[str, str] | None] = {t: None for t in have}
        queue = deque(have)
        while queue and target not in prev:
            t = queue.popleft()
            for n, on in edges.get(t, []):
                if n not in prev:
                    prev[n] = (t, on)
                    queue.append(n)
        if target not in prev:  # no path: a cross join, as a careless writer would do
            have.add(target)
            items.append(target)
            continue
        path, t = [], target
        while prev[t] is not None:
            path.append((t, prev[t][1]))
            t = prev[t][0]
        for t, on in reversed(path):
            have.add(t)
            items.append(f"{t} ON {on}")
    return items
