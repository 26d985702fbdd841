"""Hint SQL fragments (`MAX(COUNT(book_id))`, `joined_year < 2020`) as expressions over the prompt's columns."""

from __future__ import annotations

import re

from toolkit.chase_sql.standin.query import Expr
from toolkit.chase_sql.standin.reading import Col, Prompt

_KEYWORDS = {"and", "or", "not", "like", "in", "is", "null", "case", "when", "then", "else", "end", "as", "real",
             "cast", "between", "distinct", "desc", "asc", "where"}
_PIECE = re.compile(r"'(?:[^']|'')*'|\b[A-Za-z_]\w*\b(?!\s*\()|[^'A-Za-z_]+|[A-Za-z_]\w*")


def owner(p: Prompt, name: str, prefer: list[str]) -> Col | None:
    """The column called `name`, from the first preferred table that has one, else any table."""
    found = [c for c in p.columns() if c.name.lower() == name.lower()]
    found.sort(key=lambda c: prefer.index(c.table) if c.table in prefer else len(prefer))
    return found[0] if found else None


def to_expr(p: Prompt, sql: str, prefer: list[str]) -> Expr:
    out: list = []
    for piece in _PIECE.findall(sql):
        col = None
        if re.fullmatch(r"[A-Za-z_]\w*", piece) and piece.lower() not in _KEYWORDS:
            col = owner(p, piece, prefer)
        out.append(col if col is not None else piece)
    return tuple(out)


def split_aggregate(sql: str) -> tuple[str, str]:
    """'MAX(COUNT(x))' -> ('MAX', 'COUNT(x)')."""
    m = re.match(r"^\s*(\w+)\((.*)\)\s*$", sql, re.S)
    return (m.group(1).upper(), m.group(2)) if m else ("", sql)
