"""BIRD-style hints read as facts: conditions, aggregates, orderings, formulas and value spellings.

Clauses are separated by ';'. Forms understood:
  `<phrase> refers to <col> <op> <value>`      a condition (`returned = 0`, `loan_date LIKE '2023%'`)
  `<phrase> refers to AGG(<expr>)`              an aggregate, nested ones included (`MAX(COUNT(book_id))`)
  `<phrase> refers to <col> DESC|ASC`           an ordering
  `<phrase> refers to COUNT(<col>) > k`         a HAVING condition
  `<written> refers to <col>`                   which column a (perhaps misspelt) value belongs to
  `<name> = <formula>`                          a named formula (`revenue = SUM(quantity * price)`)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class Hint:
    conditions: list[tuple[str, str]] = field(default_factory=list)   # (phrase, SQL condition)
    aggregates: list[tuple[str, str]] = field(default_factory=list)   # (phrase, SQL aggregate)
    orderings: list[tuple[str, str, bool]] = field(default_factory=list)  # (phrase, column, descending)
    havings: list[tuple[str, str]] = field(default_factory=list)      # (phrase, SQL condition on an aggregate)
    spellings: list[tuple[str, str]] = field(default_factory=list)    # (written value, column)
    formulas: list[tuple[str, str]] = field(default_factory=list)     # (name, formula)


_AGG = re.compile(r"^(MAX|MIN|AVG|SUM|COUNT)\((.+)\)$", re.I)


def read_hint(hint: str) -> Hint:
    out = Hint()
    for clause in (c.strip() for c in hint.split(";")):
        if not clause:
            continue
        if " refers to " in clause:
            phrase, what = (s.strip() for s in clause.split(" refers to ", 1))
            if re.match(r"^(COUNT|SUM|AVG)\(.+\)\s*[<>]=?\s*\d+$", what, re.I):
                out.havings.append((phrase, what))
            elif _AGG.match(what):
                out.aggregates.append((phrase, what))
            elif m := re.match(r"^(\w+)\s+(DESC|ASC)$", what, re.I):
                out.orderings.append((phrase, m.group(1), m.group(2).upper() == "DESC"))
            elif re.match(r"^\w+$", what):
                out.spellings.append((phrase, what))
            elif re.match(r"^\w+\s*(=|<>|!=|>=|<=|>|<|LIKE|IN)\s*.+$", what, re.I):
                out.conditions.append((phrase, what))
        elif m := re.match(r"^([\w ]+?)\s*=\s*(.+)$", clause):
            out.formulas.append((m.group(1).strip(), m.group(2).strip()))
    return out
