"""Rule-based text-to-SQL over the prompt: the question's frame, its subject, filters and ordering.

Frames: `What percentage/share ...`, `For each X, ...`, `How many X ...`, `What is the [agg] X of ...`,
`Which/What X ...`, `List/Name the X of ...`, `Who <verb>s ...`. Filters come from the values the
question names, the hint's conditions and numbers after `above/after/before/in`; superlatives
(`most X`, `highest Y`, hint `MAX(...)`) become ORDER BY ... LIMIT, `more than k X` a HAVING,
`have no`/`never` a NOT IN. Phrasings outside these rules give no query (None) or a wrong one.
"""

from __future__ import annotations

import re

from toolkit.chase_sql.standin import mentions as M
from toolkit.chase_sql.standin.exprs import owner, split_aggregate, to_expr
from toolkit.chase_sql.standin.hints import read_hint
from toolkit.chase_sql.standin.query import Expr, Query
from toolkit.chase_sql.standin.reading import Col, Prompt, Tab, fold

_AGG_WORDS = {"average": "AVG", "mean": "AVG", "total": "SUM", "highest": "MAX", "maximum": "MAX",
              "largest": "MAX", "lowest": "MIN", "minimum": "MIN", "smallest": "MIN"}
_UP = {"highest", "largest", "most", "biggest", "greatest", "newest", "latest", "maximum", "expensive"}
_DOWN = {"lowest", "smallest", "least", "fewest", "oldest", "earliest", "first", "minimum", "cheapest"}
_GT = {"above", "over", "after", "exceeds", "exceeding"}
_LT = {"below", "under", "before"}
_SKIP = {"the", "a", "an", "all", "their", "its", "of", "different", "distinct"}


class Reader:
    def __init__(self, p: Prompt, rank) -> None:
        self.p, self.rank = p, rank
        self.raw = M.tokens(p.question)
        self.q = [re.sub(r"'s$", "", fold(w)) for w in self.raw]  # `manager's store` names the manager
        self.hint = read_hint(p.hint)
        self.tabs = M.table_mentions(p, self.q)
        self.cols = M.column_mentions(p, self.q)
        lits = M.literals(p, self.q, self.raw, self.cols, self.tabs, self.hint.spellings, rank.cutoff, rank)
        lits += M.trailing_literals(self.q, self.raw, self.cols, lits, self.tabs)
        self.lits = sorted(lits, key=lambda lit: lit.start)
        self.used: set[int] = {i for lit in self.lits for i in range(lit.start, lit.end)}

    # --- where things are -------------------------------------------------------------------------------

    def mention_at(self, i: int) -> M.ColMention | M.TabMention | None:
        """The table or column named at word i (a column first when it is more specific)."""
        cols = [m for m in self.cols if m.start == i and i not in self.used]
        tabs = [m for m in self.tabs if m.start == i]
        if cols and (not tabs or cols[0].end > tabs[0].end or self.q[i] not in ("name", "names")):
            if tabs and tabs[0].end >= cols[0].end:
                return tabs[0]
            return self.pick_col(cols)
        return tabs[0] if tabs else None

    def pick_col(self, options: list[M.ColMention]) -> M.ColMention:
        """Among same-named columns, the one whose table the question (or a value) mentions nearest."""
        def distance(m: M.ColMention) -> int:
            near = [abs(t.start - m.start) for t in self.tabs if t.table.name == m.col.table]
            near += [abs(lit.start - m.start) + 2 for lit in self.lits if lit.col.table == m.col.table]
            return min(near, default=99)
        ranked = sorted(options, key=distance)
        return self.rank(ranked, f"col:{options[0].start}") if len(ranked) > 1 and \
            distance(ranked[0]) == distance(ranked[1]) else ranked[0]

    def next_mention(self, i: int) -> M.ColMention | M.TabMention | None:
        while i < len(self.q) and self.q[i] in _SKIP | {"k"} or (i < len(self.q) and self.q[i].isdigit()):
            i += 1
        return self.mention_at(i) if i < len(self.q) else None

    def table_after(self, i: int) -> Tab | None:
        return next((m.table for m in self.tabs if m.start >= i), None)

    def first_table(self) -> Tab | None:
        if self.tabs:
            return self.tabs[0].table
        return self.p.table(self.lits[0].col.table) if self.lits else None

    def has(self, *phrases: str) -> bool:
        text = " " + " ".join(self.q) + " "
        return any(f" {ph} " in text for ph in phrases)

    def prefer(self, subject: Tab) -> list[str]:
        return [subject.name] + [m.table.name for m in self.tabs] + [lit.col.table for lit in self.lits]

    def expr(self, sql: str, subject: Tab) -> Expr:
        return to_expr(self.p, sql, self.prefer(subject))


def _label(t: Tab) -> Col | None:
    return t.label or t.pk


def _subject_projection(r: Reader, start: int) -> tuple[Tab | None, Col | None]:
    """`X` of `Which X`, `List the X of the Y`, `What is the X of the Y`: the table and column asked for."""
    m = r.next_mention(start)
    if isinstance(m, M.TabMention):
        named = [c for c in r.cols if c.start == m.end and c.col.table == m.table.name]
        return m.table, (named[0].col if named else _label(m.table))  # `product categories`
    if isinstance(m, M.ColMention):
        of = m.end < len(r.q) and r.q[m.end] == "of"
        owner_tab = r.table_after(m.end) if of else None
        if owner_tab is not None and owner_tab.name != m.col.table:
            same = owner_tab.col(m.col.name) or (owner_tab.label if r.q[m.start] in ("name", "names") else None)
            if same is not None:
                return owner_tab, same
        return r.p.table(m.col.table), m.col
    if start < len(r.q) and r.q[start] in ("names", "name"):
        t = r.table_after(start)
        return (t, _label(t)) if t else (None, None)
    t = r.first_table()
    return t, (_label(t) if t else None)


def _filters(r: Reader, q: Query, subject: Tab, skip_lits: set[int] = frozenset()) -> None:
    for lit in r.lits:
        if lit.start not in skip_lits:
            q.where.append((lit.col, " = " + _quote(lit.value)))
    for _, cond in r.hint.conditions:
        q.where.append(r.expr(cond, subject))
    _numbers(r, q, subject)


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _numbers(r: Reader, q: Query, subject: Tab) -> None:
    hinted = " ".join(c for _, c in r.hint.conditions + r.hint.havings)
    for i, w in enumerate(r.q):
        if not re.fullmatch(r"\d+(\.\d+)?", w) or i in r.used or w in hinted:
            continue
        before = r.q[max(0, i - 2):i]
        op = ">" if set(before) & _GT or before[-2:] == ["more", "than"] else \
            "<" if set(before) & _LT or before[-2:] in (["less", "than"], ["fewer", "than"]) else \
            "=" if before[-1:] == ["in"] else None
        if op is None:
            continue
        after = r.mention_at(i + 1) if i + 1 < len(r.q) else None
        if isinstance(after, M.TabMention) and op != "=":  # more than 4 trophies
            q.group, q.having = [(subject.pk,)], ("COUNT(", after.table.pk, f") {op} {w}")
            continue
        col = _number_column(r, i, subject, year=len(w) == 4)
        if col is None:
            continue
        if op == "=" and not col.numeric:
            q.where.append((col, f" LIKE '{w}%'"))
        else:
            q.where.append((col, f" {op} {w}"))


def _number_column(r: Reader, i: int, subject: Tab, year: bool) -> Col | None:
    near = [m for m in r.cols if m.end <= i and i - m.end <= 3 and (m.col.numeric or "date" in m.col.name.lower())]
    if near and not (year and r.q[i - 1] == "in"):  # `riders in 2023` is about the year, not the riders
        last = [m for m in near if m.start == near[-1].start]
        return min(last, key=lambda m: m.col.table != subject.name).col
    verbs = [w for w in r.q[max(0, i - 3):i] if len(w) > 3]
    pool = [c for c in r.p.columns() if not c.key and (c.numeric or c.type.upper() in ("DATE", "TEXT"))]
    if year:
        pool = [c for c in pool if "year" in c.name.lower() or "date" in c.name.lower() or c.type.upper() == "DATE"
                or "yyyy" in c.description.lower() or (c.type.upper() == "INTEGER" and c.name.lower() in verbs)]
    involved = {m.col.table for m in r.cols} | {lit.col.table for lit in r.lits}
    pool.sort(key=lambda c: (not any(v[:4] in c.name.lower() for v in verbs), c.name.lower() != "year",
                             c.table not in involved, c.table != subject.name))
    return pool[0] if pool else None


def _superlative(r: Reader, q: Query, subject: Tab, consumed: set[str]) -> None:
    """Hint aggregates and orderings, `most X`, `highest Y`, `newest first`, `in stop order`."""
    for phrase, agg in r.hint.aggregates:
        if phrase in consumed:
            continue
        outer, inner = split_aggregate(agg)
        if outer not in ("MAX", "MIN"):
            continue
        q.order, q.descending, q.limit = r.expr(inner, subject), outer == "MAX", 1
        if re.match(r"^(COUNT|SUM|AVG)\(", inner, re.I):
            q.group = [(subject.pk,)]
        return
    for _, column, desc in r.hint.orderings:
        col = owner(r.p, column, r.prefer(subject))
        if col is not None:
            q.order, q.descending = (col,), desc
            return
    for i, w in enumerate(r.q):
        if w in ("most", "number") or (w in _UP | _DOWN and r.q[i + 1:i + 3] in (["number", "of"],)):
            m = r.next_mention(i + 1 if w != "number" else i + 2)
            if w != "number" and r.q[i + 1:i + 3] == ["number", "of"]:
                m = r.next_mention(i + 3)
            if isinstance(m, M.TabMention) and m.table.name != subject.name:
                q.group, q.order, q.descending, q.limit = [(subject.pk,)], ("COUNT(", m.table.pk, ")"), True, 1
                return
        if w in _UP | _DOWN:
            m = r.next_mention(i + 1)
            if isinstance(m, M.ColMention) and (m.col.numeric or m.col.type.upper() == "DATE"):
                q.order, q.descending, q.limit = (m.col,), w in _UP, 1
                return
    for i, w in enumerate(r.q):
        if w == "first" and i > 0 and r.q[i - 1] in _UP | _DOWN and q.order is None:  # `newest first`
            numeric = [c for e in q.where for c in e if isinstance(c, Col) and c.numeric]
            if numeric:
                q.order, q.descending = (numeric[0],), r.q[i - 1] in _UP
        if w == "order" and i > 0 and isinstance(m := r.mention_at(i - 1), M.ColMention):  # `in stop order`
            q.order, q.descending = (m.col,), False


def _above_average(r: Reader, q: Query, subject: Tab) -> set[str]:
    """`whose X is above the average X`: a nested AVG; returns the hint phrases it used."""
    for phrase, agg in r.hint.aggregates:
        outer, inner = split_aggregate(agg)
        if outer == "AVG" and r.has(*(f"{w} the {fold(phrase)}" for w in _GT | {"than"})):
            col = owner(r.p, inner, r.prefer(subject))
            if col is not None:
                q.where.append((col, f" > (SELECT AVG({col.name}) FROM {col.table})"))
                return {phrase}
    return set()


def _negated(r: Reader, q: Query, subject: Tab, key: Col) -> None:
    """`have no X ...`/`never`: the conditions move into a NOT IN subquery over the same table."""
    inner = Query(subject.name, select=[(key,)], where=q.where)
    q.where = [(key, " NOT IN (" + inner.render(r.p) + ")")]
    q.extra_tables = set()


def write_sql(p: Prompt, rank) -> str | None:
    if not p.question or not p.tables:
        return None
    r = Reader(p, rank)
    words = r.q
    percent = "percentage" in words or "percent" in words or (words[:2] in (["what", "share"],))
    if percent:
        return _percentage(r)
    if words[:2] == ["for", "each"]:
        return _for_each(r)
    if words[:2] == ["how", "many"]:
        return _how_many(r)
    if words[:1] in (["what"], ["which"], ["list"], ["name"], ["give"], ["show"], ["who"]):
        return _which(r)
    return None


def _scalar(r: Reader, start: int, subject_hint: Tab | None) -> tuple[Expr, Tab, str] | None:
    """`the average X`, `the total Y`, or a hint aggregate/formula whose phrase starts at word `start`."""
    rest = " ".join(r.q[start:])
    for phrase, agg in r.hint.aggregates:
        if rest.startswith(fold(phrase)):
            t = subject_hint or r.first_table()
            return r.expr(agg, t), r.table_after(start + len(phrase.split())) or t, phrase
    for name, formula in r.hint.formulas:
        if rest.startswith(fold(name)) and not formula.upper().startswith("DIVIDE"):
            t = r.table_after(start) or r.first_table()
            return r.expr(formula, t), t, name
    w = r.q[start] if start < len(r.q) else ""
    if w in _AGG_WORDS:  # `average product price`, `total number of riders`
        m = next((m for m in r.cols if start < m.start <= start + 4 and m.col.numeric), None)
        if m is not None:
            return (_AGG_WORDS[w] + "(", m.col, ")"), r.p.table(m.col.table), ""
    return None


def _how_many(r: Reader) -> str | None:
    distinct = r.q[2:3] == ["different"]
    m = r.next_mention(2)
    if isinstance(m, M.ColMention) and m.col.numeric:
        subject, select = r.p.table(m.col.table), ("SUM(", m.col, ")")
    elif isinstance(m, M.TabMention):
        subject, select = m.table, None
    else:
        subject, select = r.first_table(), None
    if subject is None:
        return None
    for _, agg in r.hint.aggregates:  # `in total refers to SUM(copies)`
        if split_aggregate(agg)[0] == "SUM":
            select = r.expr(agg, subject)
    q = Query(subject.name)
    _filters(r, q, subject)
    joined = len(q.tables()) > 1
    if select is None:
        count = ("COUNT(DISTINCT ", subject.pk, ")") if (distinct or joined) and subject.pk else ("COUNT(*)",)
        select = r.rank([count, ("COUNT(*)",)], "count") if joined else count
    q.select = [select]
    return q.render(r.p)


def _for_each(r: Reader) -> str | None:
    m = r.next_mention(2)
    if isinstance(m, M.TabMention):
        subject, group, shown = m.table, (m.table.pk,), _label(m.table)
    elif isinstance(m, M.ColMention):
        subject, group, shown = r.p.table(m.col.table), (m.col,), m.col
    else:
        return None
    ask = next((i for i, w in enumerate(r.q) if w in ("how", "what")), len(r.q))  # the clause after the comma
    q = Query(subject.name, group=[group])
    scalar = None
    if r.q[ask:ask + 1] == ["what"]:
        scalar = _scalar(r, ask + 2 + (r.q[ask + 2:ask + 3] == ["the"]), subject)
    counted = r.next_mention(ask + 2)
    if scalar:
        agg = scalar[0]
    elif isinstance(counted, M.TabMention) and counted.table.pk:
        agg = ("COUNT(", counted.table.pk, ")")
    else:
        agg = ("COUNT(*)",)
    q.select = [(shown,), agg]
    _filters(r, q, subject)
    return q.render(r.p)


def _which(r: Reader) -> str | None:
    w = r.q
    start, scalar = 1, None
    if w[0] == "what" and w[1:2] in (["is"], ["was"], ["are"], ["were"]):
        start = 2 + (w[2:3] == ["the"])
        scalar = _scalar(r, start, None)
    if scalar:
        expr, subject, _ = scalar
        q = Query(subject.name, select=[expr])
        _filters(r, q, subject)
        return q.render(r.p)
    subject, proj = _subject_projection(r, start)
    if subject is None or proj is None:
        return None
    if "their" in w:  # `... List their full names.`
        i = w.index("their")
        m = r.mention_at(i + 1)
        if isinstance(m, M.ColMention):
            proj = subject.col(m.col.name) or proj
    q = Query(subject.name, select=[(proj,)])
    consumed = _above_average(r, q, subject)
    _filters(r, q, subject)
    negated = r.has("have no", "has no", "never")
    _superlative(r, q, subject, consumed)
    for _, cond in r.hint.havings:  # `more than 4 trophies refers to COUNT(trophy_id) > 4`
        q.group, q.having = [(subject.pk,)], r.expr(cond, subject)
    if q.limit is None:
        k = next((int(x) for x in w[1:3] if x.isdigit()), None) if w[0] == "name" else None
        q.limit = k if q.order is not None else None
    if negated and q.where:
        _negated(r, q, subject, subject.pk if proj is _label(subject) or proj is subject.label else proj)
        q.distinct = True
    return q.render(r.p)


def _percentage(r: Reader) -> str | None:
    """CAST(SUM(CASE WHEN cond THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(*), cond from the hint's DIVIDE."""
    subject = r.table_after(0) or r.first_table()
    if subject is None:
        return None
    divide = next((f for _, f in r.hint.formulas if f.upper().startswith("DIVIDE")), "")
    m = re.match(r"DIVIDE\((COUNT|SUM)\((.+?)\),\s*(COUNT|SUM)\((.+?)\)\)", divide, re.I)
    q = Query(subject.name)
    skip: set[int] = set()
    if m and m.group(1).upper() == "SUM" and " where " in m.group(2):
        value, cond = m.group(2).split(" where ", 1)
        then, total = r.expr(value, subject), ("SUM(", *r.expr(m.group(4), subject), ")")
        case = r.expr(cond, subject)
        skip = {lit.start for lit in r.lits if fold(lit.value) in fold(cond)}
    elif m and not re.search(r"\bwith that\b", m.group(2)):
        then, total, case = ("1",), ("COUNT(", *r.expr(m.group(4), subject), ")"), r.expr(m.group(2), subject)
    else:
        lit = r.lits[0] if r.lits else None
        if lit is None:
            return None
        then, total, case, skip = ("1",), ("COUNT(*)",), (lit.col, " = " + _quote(lit.value)), {lit.start}
    q.select = [("CAST(SUM(CASE WHEN ", *case, " THEN ", *then, " ELSE 0 END) AS REAL) * 100 / ", *total)]
    counted_condition = m is not None and m.group(1).upper() == "COUNT" and not re.search(r"\bwith that\b", m.group(2))
    if counted_condition:  # the hint's condition is the numerator: its words are no filter
        skip = set(range(len(r.q)))
        q.extra_tables = {c.table for c in case if isinstance(c, Col)}
    _filters(r, q, subject, skip)
    q.where = [e for e in q.where if e != case and not (counted_condition and _is_number_cond(e))]
    return q.render(r.p)


def _is_number_cond(e: Expr) -> bool:
    return len(e) == 2 and isinstance(e[1], str) and re.fullmatch(r" [<>=] \d+", e[1]) is not None
