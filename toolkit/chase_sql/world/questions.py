"""Question templates in BIRD's three difficulty levels, each giving question, evidence and gold SQL.

simple: one table (filters, lookups, extremes, aggregates, dates, flags); moderate: joins, GROUP BY,
ORDER BY/LIMIT, DISTINCT; challenging: HAVING, nested queries, NOT IN, argmax over groups,
percentages, three-table joins. A template returns None when the schema lacks what it needs; the
caller executes the draft and redraws when the gold result is empty or ambiguous.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from toolkit.chase_sql.world import values as V
from toolkit.chase_sql.world.schema import NUMBER_KINDS, TEXT_KINDS, WColumn, WorldDB, WTable

P_MISSPELL = 0.5  # of the questions that name a person, place, product, organisation or title
_MISSPELLABLE_COLS = ("city", "country", "person")


@dataclass
class Draft:
    question: str
    sql: str
    evidence: str = ""
    tie: tuple[str, int] | None = None  # (SQL of the ordering key, k): the k-th and (k+1)-th must differ
    misspelling: dict | None = None


class Mention:
    """How a question writes one value: as stored, or (sometimes) with one typo and a BIRD-style hint."""

    def __init__(self, db: WorldDB, rng: random.Random) -> None:
        self.db, self.rng, self.misspelling, self.hints = db, rng, None, []

    def __call__(self, table: WTable, col: WColumn, value: str) -> str:
        misspellable = col.kind in _MISSPELLABLE_COLS or col.kind == "label"
        if self.misspelling is None and misspellable and self.rng.random() < P_MISSPELL:
            written = V.misspell(value, self.rng, _all_text(self.db))
            if written is not None:
                self.misspelling = {"written": written, "value": value, "column": f"{table.name}.{col.name}"}
                self.hints.append(f"{written} refers to {col.q}")
                return written
        return value

    def say(self, col: WColumn) -> str:
        """What the question calls a column: its words, or a synonym that a hint ties to the column (BIRD's
        `pay refers to salary`); an abbreviated name gets such a hint half the time."""
        if col.said and col.said != col.phrase:
            self._hint(f"{col.said} refers to {col.q}")
            return col.said
        if col.text and col.text.replace(" ", "").lower() != col.name.replace("_", "").replace(" ", "").lower() \
                and col.kind not in ("pk", "fk", "label") and self.rng.random() < 0.5:
            self._hint(f"{col.text} refers to {col.q}")
        return col.phrase

    def _hint(self, hint: str) -> None:
        if hint not in self.hints:
            self.hints.append(hint)

    def wording(self, default: str, *others: str) -> str:
        """The template's wording, or in a varied-names database one of several (BIRD's questions are free text)."""
        return self.rng.choice((default, *others)) if self.db.varied else default

    def evidence(self, *extra: str) -> str:
        return "; ".join(dict.fromkeys([e for e in extra if e] + self.hints))


def _all_text(db: WorldDB) -> set[str]:
    return {v for t in db.tables for r in t.rows for v in r if isinstance(v, str)}


def _pick(rng, items):
    return rng.choice(items) if items else None


def _fk_pair(db: WorldDB, rng) -> tuple[WTable, WColumn, WTable] | None:
    pairs = [(t, c, db.table(c.ref)) for t in db.tables for c in t.of_kind("fk")]
    return _pick(rng, pairs)


def _fk_text_value(db: WorldDB, rng, m, side: str):
    """A foreign-key pair and a value of a text column of its `side` ("child" or "parent"), with its wording."""
    if (pair := _fk_pair(db, rng)) is None:
        return None
    child, fk, parent = pair
    table = child if side == "child" else parent
    c = _pick(rng, _text(table))
    if c is None:
        return None
    v = rng.choice(table.values(c))
    return child, fk, parent, c, v, m(table, c, v)


def _join(child: WTable, fk: WColumn, parent: WTable) -> str:
    return f"{child.q} AS T1 JOIN {parent.q} AS T2 ON T1.{fk.q} = T2.{parent.pk.q}"


def _linked_label(child: WTable, fk: WColumn, parent: WTable, rng) -> str:
    """The name of a parent row that has at least one child row."""
    pid = rng.choice(child.values(fk))
    return parent.values(parent.label)[parent.values(parent.pk).index(pid)]


def _num(t: WTable) -> list[WColumn]:
    return t.of_kind(*NUMBER_KINDS)


def _text(t: WTable) -> list[WColumn]:
    return t.of_kind(*TEXT_KINDS)


# ---- simple -------------------------------------------------------------------------------------------

def s_count_text(db, rng, m):
    t = rng.choice(db.tables)
    c = _pick(rng, _text(t))
    if c is None:
        return None
    v = rng.choice(t.values(c))
    w = m(t, c, v)
    return Draft(m.wording(f"How many {t.entity.plural} have {m.say(c)} {w}?",
                           f"How many {t.entity.plural} are there with {m.say(c)} {w}?",
                           f"Count the {t.entity.plural} whose {m.say(c)} is {w}.",
                           f"What is the number of {t.entity.plural} with {w} as {m.say(c)}?"),
                 f"SELECT COUNT(*) FROM {t.q} WHERE {c.q} = '{v}'", m.evidence())


def s_lookup(db, rng, m):
    t = rng.choice(db.tables)
    c = _pick(rng, t.of_kind(*TEXT_KINDS, *NUMBER_KINDS, "date"))
    if c is None:
        return None
    v = rng.choice(t.values(t.label))
    w = m(t, t.label, v)
    return Draft(m.wording(f"What is the {m.say(c)} of the {t.entity.stem} named {w}?",
                           f"Give the {m.say(c)} of {w}.", f"What {m.say(c)} does the {t.entity.stem} {w} have?",
                           f"Tell me the {m.say(c)} of {w}."),
                 f"SELECT {c.q} FROM {t.q} WHERE {t.label.q} = '{v}'", m.evidence())


def s_threshold(db, rng, m):
    t = rng.choice(db.tables)
    c = _pick(rng, _num(t))
    if c is None:
        return None
    k = sorted(t.values(c))[len(t.rows) // 2]
    return Draft(m.wording(f"List the names of the {t.entity.plural} whose {m.say(c)} is above {k}.",
                           f"Which {t.entity.plural} have a {m.say(c)} greater than {k}? Give their names.",
                           f"Name the {t.entity.plural} with {m.say(c)} over {k}.",
                           f"What are the names of the {t.entity.plural} with more than {k} {m.say(c)}?"),
                 f"SELECT {t.label.q} FROM {t.q} WHERE {c.q} > {k}")


def s_extreme(db, rng, m):
    t = rng.choice(db.tables)
    c = _pick(rng, _num(t))
    if c is None:
        return None
    word, agg, order = rng.choice((("highest", "MAX", "DESC"), ("lowest", "MIN", "ASC")))
    return Draft(m.wording(f"Which {t.entity.stem} has the {word} {m.say(c)}?",
                           f"What is the name of the {t.entity.stem} with the {word} {m.say(c)}?",
                           f"Name the {t.entity.stem} whose {m.say(c)} is the {word}."),
                 f"SELECT {t.label.q} FROM {t.q} ORDER BY {c.q} {order} LIMIT 1",
                 f"{word} {m.say(c)} refers to {agg}({c.q})",
                 tie=(f"SELECT {c.q} FROM {t.q} ORDER BY {c.q} {order} LIMIT 2", 1))


_AGGS = (("average", "AVG"), ("highest", "MAX"), ("lowest", "MIN"), ("total", "SUM"))


def _aggregate(n: WColumn, rng) -> tuple[str, str]:
    """An aggregate that makes sense for the column (no totals of years or ratings)."""
    return rng.choice(_AGGS[:3] if n.kind in ("year", "rating") else _AGGS)


def s_aggregate(db, rng, m):
    t = rng.choice(db.tables)
    n, c = _pick(rng, _num(t)), _pick(rng, _text(t))
    if n is None or c is None:
        return None
    word, agg = _aggregate(n, rng)
    v = rng.choice(t.values(c))
    w = m(t, c, v)
    return Draft(f"What is the {word} {m.say(n)} of the {t.entity.plural} with {m.say(c)} {w}?",
                 f"SELECT {agg}({n.q}) FROM {t.q} WHERE {c.q} = '{v}'",
                 m.evidence(f"{word} {m.say(n)} refers to {agg}({n.q})"))


def s_year(db, rng, m):
    t = _pick(rng, [t for t in db.tables if t.of_kind("date")])
    if t is None:
        return None
    d = t.of_kind("date")[0]
    year = rng.choice(t.values(d))[:4]
    return Draft(m.wording(f"How many {t.entity.plural} have a {m.say(d)} in {year}?",
                           f"In {year}, how many {t.entity.plural} had their {m.say(d)}?",
                           f"Count the {t.entity.plural} with a {year} {m.say(d)}."),
                 f"SELECT COUNT(*) FROM {t.q} WHERE {d.q} LIKE '{year}%'",
                 f"in {year} refers to {d.q} LIKE '{year}%'")


def s_flag(db, rng, m):
    t = _pick(rng, [t for t in db.tables if t.of_kind("flag")])
    if t is None:
        return None
    f = t.of_kind("flag")[0]
    return Draft(f"List the names of the {t.entity.plural} with {m.say(f)} set.",
                 f"SELECT {t.label.q} FROM {t.q} WHERE {f.q} = 1",
                 f"{m.say(f)} set refers to {f.q} = 1")


# ---- moderate -----------------------------------------------------------------------------------------

def m_join_list(db, rng, m):
    if (pair := _fk_pair(db, rng)) is None:
        return None
    child, fk, parent = pair
    v = _linked_label(child, fk, parent, rng)
    w = m(parent, parent.label, v)
    return Draft(m.wording(f"List the names of the {child.entity.plural} of the {parent.entity.stem} {w}.",
                           f"Which {child.entity.plural} does {w} have? Give their names.",
                           f"Name every {child.entity.stem} of {w}."),
                 f"SELECT T1.{child.label.q} FROM {_join(child, fk, parent)} WHERE T2.{parent.label.q} = '{v}'",
                 m.evidence())


def m_join_count(db, rng, m):
    if (drawn := _fk_text_value(db, rng, m, "parent")) is None:
        return None
    child, fk, parent, c, v, w = drawn
    return Draft(m.wording(f"How many {child.entity.plural} belong to a {parent.entity.stem} with {m.say(c)} {w}?",
                           f"How many {child.entity.plural} do the {parent.entity.plural} with {m.say(c)} {w} have?",
                           f"Count the {child.entity.plural} of {parent.entity.plural} whose {m.say(c)} is {w}."),
                 f"SELECT COUNT(T1.{child.pk.q}) FROM {_join(child, fk, parent)} WHERE T2.{c.q} = '{v}'",
                 m.evidence())


def m_join_aggregate(db, rng, m):
    if (pair := _fk_pair(db, rng)) is None:
        return None
    child, fk, parent = pair
    n = _pick(rng, _num(child))
    if n is None:
        return None
    word, agg = _aggregate(n, rng)
    v = _linked_label(child, fk, parent, rng)
    w = m(parent, parent.label, v)
    return Draft(f"What is the {word} {m.say(n)} of the {child.entity.plural} of the {parent.entity.stem} {w}?",
                 f"SELECT {agg}(T1.{n.q}) FROM {_join(child, fk, parent)} WHERE T2.{parent.label.q} = '{v}'",
                 m.evidence(f"{word} {m.say(n)} refers to {agg}({n.q})"))


def m_group_count(db, rng, m):
    if (pair := _fk_pair(db, rng)) is None:
        return None
    child, fk, parent = pair
    return Draft(f"For each {parent.entity.stem}, how many {child.entity.plural} does it have? "
                 f"Give the name and the number.",
                 f"SELECT T2.{parent.label.q}, COUNT(T1.{child.pk.q}) FROM {_join(child, fk, parent)} "
                 f"GROUP BY T2.{parent.pk.q}")


def m_group_attribute(db, rng, m):
    t = rng.choice(db.tables)
    n, c = _pick(rng, _num(t)), _pick(rng, _text(t))
    if n is None or c is None:
        return None
    return Draft(f"For each {m.say(c)} of the {t.entity.plural}, what is the average {m.say(n)}?",
                 f"SELECT {c.q}, AVG({n.q}) FROM {t.q} GROUP BY {c.q}",
                 f"average {m.say(n)} refers to AVG({n.q})")


def m_top_k(db, rng, m):
    t = rng.choice(db.tables)
    n, c = _pick(rng, _num(t)), _pick(rng, _text(t))
    if n is None or c is None:
        return None
    k = rng.choice((2, 3))
    v = rng.choice(t.values(c))
    w = m(t, c, v)
    where = f"FROM {t.q} WHERE {c.q} = '{v}' ORDER BY {n.q} DESC"
    return Draft(f"Name the {k} {t.entity.plural} with {m.say(c)} {w} that have the largest {m.say(n)}.",
                 f"SELECT {t.label.q} {where} LIMIT {k}", m.evidence(f"largest {m.say(n)} refers to {n.q} DESC"),
                 tie=(f"SELECT {n.q} {where} LIMIT {k + 1}", k))


def m_distinct_parents(db, rng, m):
    if (drawn := _fk_text_value(db, rng, m, "child")) is None:
        return None
    child, fk, parent, c, v, w = drawn
    return Draft(f"How many different {parent.entity.plural} have at least one {child.entity.stem} "
                 f"with {m.say(c)} {w}?",
                 f"SELECT COUNT(DISTINCT {fk.q}) FROM {child.q} WHERE {c.q} = '{v}'", m.evidence())


# ---- challenging --------------------------------------------------------------------------------------

def c_having(db, rng, m):
    if (pair := _fk_pair(db, rng)) is None:
        return None
    child, fk, parent = pair
    counts = sorted(child.values(fk).count(p) for p in set(child.values(fk)))
    k = counts[len(counts) // 2]
    return Draft(f"Which {parent.entity.plural} have more than {k} {child.entity.plural}? List their names.",
                 f"SELECT T2.{parent.label.q} FROM {_join(child, fk, parent)} GROUP BY T2.{parent.pk.q} "
                 f"HAVING COUNT(T1.{child.pk.q}) > {k}",
                 f"more than {k} {child.entity.plural} refers to COUNT({child.pk.q}) > {k}")


def c_above_average(db, rng, m):
    t = rng.choice(db.tables)
    n = _pick(rng, _num(t))
    if n is None:
        return None
    return Draft(f"List the names of the {t.entity.plural} whose {m.say(n)} is above the average {m.say(n)}.",
                 f"SELECT {t.label.q} FROM {t.q} WHERE {n.q} > (SELECT AVG({n.q}) FROM {t.q})",
                 f"average {m.say(n)} refers to AVG({n.q})")


def c_not_in(db, rng, m):
    if (drawn := _fk_text_value(db, rng, m, "child")) is None:
        return None
    child, fk, parent, c, v, w = drawn
    return Draft(f"Which {parent.entity.plural} have no {child.entity.stem} with {m.say(c)} {w}? List their names.",
                 f"SELECT {parent.label.q} FROM {parent.q} WHERE {parent.pk.q} NOT IN "
                 f"(SELECT {fk.q} FROM {child.q} WHERE {c.q} = '{v}')", m.evidence())


def c_most_children(db, rng, m):
    if (pair := _fk_pair(db, rng)) is None:
        return None
    child, fk, parent = pair
    group = f"FROM {_join(child, fk, parent)} GROUP BY T2.{parent.pk.q} ORDER BY COUNT(T1.{child.pk.q}) DESC"
    return Draft(m.wording(f"Which {parent.entity.stem} has the most {child.entity.plural}?",
                           f"Name the {parent.entity.stem} with the largest number of {child.entity.plural}."),
                 f"SELECT T2.{parent.label.q} {group} LIMIT 1",
                 f"the most {child.entity.plural} refers to MAX(COUNT({child.pk.q}))",
                 tie=(f"SELECT COUNT(T1.{child.pk.q}) {group} LIMIT 2", 1))


def c_percentage(db, rng, m):
    t = rng.choice(db.tables)
    c = _pick(rng, _text(t))
    if c is None:
        return None
    v = rng.choice(t.values(c))
    w = m(t, c, v)
    return Draft(f"What percentage of the {t.entity.plural} have {m.say(c)} {w}?",
                 f"SELECT CAST(SUM(CASE WHEN {c.q} = '{v}' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(*) "
                 f"FROM {t.q}",
                 m.evidence(f"percentage = DIVIDE(COUNT({t.pk.q} with that {c.q}), COUNT({t.pk.q})) * 100"))


def c_chain(db, rng, m):
    chains = [(gc, fk1, ch, fk2, db.table(fk2.ref)) for gc in db.tables for fk1 in gc.of_kind("fk")
              for ch in [db.table(fk1.ref)] for fk2 in ch.of_kind("fk")]
    if not chains:
        return None
    gc, fk1, ch, fk2, top = rng.choice(chains)
    v = _linked_label(ch, fk2, top, rng)
    w = m(top, top.label, v)
    return Draft(f"How many {gc.entity.plural} belong to the {ch.entity.plural} of the {top.entity.stem} {w}?",
                 f"SELECT COUNT(T1.{gc.pk.q}) FROM {gc.q} AS T1 JOIN {ch.q} AS T2 "
                 f"ON T1.{fk1.q} = T2.{ch.pk.q} JOIN {top.q} AS T3 ON T2.{fk2.q} = T3.{top.pk.q} "
                 f"WHERE T3.{top.label.q} = '{v}'", m.evidence())


# ---- more of BIRD's phrasings, drawn for varied-names databases only (the older worlds stay as they were) ------

def s_value_as_word(db, rng, m):
    """`How many orders were returned?` with the hint `returned refers to status = 'returned'`."""
    t = rng.choice(db.tables)
    c = _pick(rng, t.of_kind("status", "color", "tier"))
    if c is None:
        return None
    v = rng.choice(t.values(c))
    if rng.random() < 0.5:
        return Draft(f"How many {t.entity.plural} are {v}?", f"SELECT COUNT(*) FROM {t.q} WHERE {c.q} = '{v}'",
                     f"{v} refers to {c.q} = '{v}'")
    return Draft(f"List the names of the {v} {t.entity.plural}.", f"SELECT {t.label.q} FROM {t.q} WHERE {c.q} = '{v}'",
                 f"{v} refers to {c.q} = '{v}'")


def s_before_year(db, rng, m):
    t = _pick(rng, [t for t in db.tables if t.of_kind("date")])
    if t is None:
        return None
    d = t.of_kind("date")[0]
    year = sorted(v[:4] for v in t.values(d))[len(t.rows) // 2]
    word, op = rng.choice((("before", "<"), ("after", ">=")))
    bound = year if op == "<" else str(int(year) + 1)
    said = m.say(d)
    return Draft(m.wording(f"List the names of the {t.entity.plural} with a {said} {word} {year}.",
                           f"Which {t.entity.plural} have their {said} {word} {year}? Give their names."),
                 f"SELECT {t.label.q} FROM {t.q} WHERE {d.q} {op} '{bound}'",
                 m.evidence(f"{word} {year} refers to {d.q} {op} '{bound}'"))


def m_join_distinct_parent(db, rng, m):
    """`List the doctors who have a missed appointment`: parents with a child matching a value."""
    if (drawn := _fk_text_value(db, rng, m, "child")) is None:
        return None
    child, fk, parent, c, v, w = drawn
    return Draft(f"List the names of the {parent.entity.plural} that have a {child.entity.stem} with {m.say(c)} {w}.",
                 f"SELECT DISTINCT T2.{parent.label.q} FROM {_join(child, fk, parent)} WHERE T1.{c.q} = '{v}'",
                 m.evidence())


def c_group_sum_top(db, rng, m):
    """`Which drug was prescribed for the most days in total?`: the text value with the largest sum."""
    t = rng.choice(db.tables)
    n, c = _pick(rng, t.of_kind("count", "amount", "price", "weight")), _pick(rng, _text(t))
    if n is None or c is None:
        return None
    group = f"FROM {t.q} GROUP BY {c.q} ORDER BY SUM({n.q}) DESC"
    return Draft(f"Which {m.say(c)} of the {t.entity.plural} has the highest total {m.say(n)}?",
                 f"SELECT {c.q} {group} LIMIT 1", m.evidence(f"highest total {m.say(n)} refers to MAX(SUM({n.q}))"),
                 tie=(f"SELECT SUM({n.q}) {group} LIMIT 2", 1))


VARIED_EXTRA = {"simple": (s_value_as_word, s_before_year), "moderate": (m_join_distinct_parent,),
                "challenging": (c_group_sum_top,)}

TEMPLATES = {
    "simple": (s_count_text, s_lookup, s_threshold, s_extreme, s_aggregate, s_year, s_flag),
    "moderate": (m_join_list, m_join_count, m_join_aggregate, m_group_count, m_group_attribute, m_top_k,
                 m_distinct_parents),
    "challenging": (c_having, c_above_average, c_not_in, c_most_children, c_percentage, c_chain),
}


def draft(db: WorldDB, difficulty: str, rng: random.Random) -> Draft | None:
    """One template of the level, drawn at random, filled from this database (None: it does not fit)."""
    m = Mention(db, rng)
    d = rng.choice(TEMPLATES[difficulty] + (VARIED_EXTRA[difficulty] if db.varied else ()))(db, rng, m)
    if d is not None:
        d.misspelling = m.misspelling
        d.evidence = m.evidence(*d.evidence.split("; "))  # hints of columns named outside m.evidence()
    return d
