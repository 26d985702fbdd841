"""Where the question names tables, columns and values, found by matching words against the prompt.

Values come from the retrieved-values block and the schema's example values (a misspelt phrase
matches by edit similarity), from the hint's `<written> refers to <column>`, and from what
follows `<column phrase>` in a question; a value nobody showed is written the way the question
spells it (and then usually matches no row).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolkit.chase_sql.standin.reading import Col, Prompt, Tab, fold

_WORD = re.compile(r"[\w&'-]+")
_STOPS = {"that", "which", "and", "or", "in", "of", "the", "with", "who", "whose", "by", "from", "at", "for"}


@dataclass
class Span:
    start: int  # token index
    end: int    # one past the last token


@dataclass
class Literal(Span):
    col: Col
    value: str
    score: float


@dataclass
class ColMention(Span):
    col: Col


@dataclass
class TabMention(Span):
    table: Tab


def tokens(text: str) -> list[str]:
    return _WORD.findall(text)


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def plural(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def _forms(phrase: str) -> set[str]:
    words = phrase.lower().replace("_", " ").split()
    if not words:
        return set()
    one = " ".join(words[:-1] + [singular(words[-1])])
    return {" ".join(words), one, " ".join(words[:-1] + [plural(singular(words[-1]))])}


def _find(qwords: list[str], form: str) -> list[Span]:
    fw = form.split()
    n = len(fw)
    return [Span(i, i + n) for i in range(len(qwords) - n + 1) if qwords[i:i + n] == fw]


def table_mentions(p: Prompt, qwords: list[str]) -> list[TabMention]:
    out = []
    for t in p.tables:
        for form in _forms(t.name):
            out += [TabMention(s.start, s.end, t) for s in _find(qwords, form)]
    return sorted(out, key=lambda m: m.start)


def column_mentions(p: Prompt, qwords: list[str]) -> list[ColMention]:
    out = []
    for c in p.columns():
        if c.key:
            continue
        forms = _forms(c.name)
        for form in forms:
            out += [ColMention(s.start, s.end, c) for s in _find(qwords, form)]
        name = c.name.lower()
        if "_" not in name and len(name) >= 6:  # 'manages' names the column 'manager'
            out += [ColMention(i, i + 1, c) for i, w in enumerate(qwords)
                    if w != name and len(w) >= 5 and name.startswith(w[:-1]) and w not in forms]
    return sorted(out, key=lambda m: (m.start, -(m.end - m.start)))


def _lexicon(p: Prompt) -> list[tuple[Col, str, int]]:
    """(column, value, source) with source 0 for retrieved values, 1 for schema examples."""
    out = []
    for table, column, value in p.values:
        t = p.table(table)
        c = t.col(column) if t else None
        if c is not None:
            out.append((c, value, 0))
    for c in p.columns():
        if not c.key and not c.numeric:
            out += [(c, v, 1) for v in c.examples if not re.fullmatch(r"[\d\-.: ]+", v)]
    return out


def _best_span(qwords: list[str], value: str, cutoff: float) -> tuple[Span, float] | None:
    from rapidfuzz import fuzz

    target = " ".join(tokens(fold(value)))
    n = len(target.split())
    if not target:
        return None
    exact_only = len(target) < 5 or any(ch.isdigit() for ch in target)  # 'Line 7' is not 'line'
    best = None
    for k in {max(1, n - 1), n, n + 1}:
        for i in range(len(qwords) - k + 1):
            gram = " ".join(qwords[i:i + k])
            score = 100.0 if gram == target else fuzz.ratio(gram, target)
            if score < 100 and (exact_only or len(gram) < 5 or score < cutoff):
                continue
            if best is None or score > best[1]:
                best = (Span(i, i + k), score)
    return best


def literals(p: Prompt, qwords: list[str], raw: list[str], cols: list[ColMention], tabs: list[TabMention],
             spellings: list[tuple[str, str]], cutoff: float, rank) -> list[Literal]:
    """Values the question names, one per stretch of words; `rank(options, key)` picks among readings."""
    from rapidfuzz import fuzz

    lexicon = _lexicon(p)
    out: list[Literal] = []
    for written, column in spellings:  # the hint says which column this phrase belongs to
        span = next(iter(_find(qwords, " ".join(tokens(fold(written))))), None)
        owners = [c for t in p.tables if (c := t.col(column)) is not None]
        if span is None or not owners:
            continue
        mentioned = {m.table.name for m in tabs}
        owners.sort(key=lambda c: c.table not in mentioned)
        shown = [(fuzz.ratio(fold(v), fold(written)), c, v) for c, v, _ in lexicon if c.name.lower() == column.lower()]
        best = max((s for s in shown if s[0] >= 70), key=lambda s: (s[1].table in mentioned, s[0]), default=None)
        if best is not None:
            out.append(Literal(span.start, span.end, best[1], best[2], best[0]))
        else:
            out.append(Literal(span.start, span.end, owners[0], " ".join(raw[span.start:span.end]), 0.0))
    found: dict[tuple[int, int], list[tuple[float, int, Col, str]]] = {}
    for c, value, source in lexicon:
        hit = _best_span(qwords, value, cutoff)
        if hit:
            span, score = hit
            found.setdefault((span.start, span.end), []).append((score, source, c, value))
    taken: set[int] = {i for m in cols for i in range(m.start, m.end)}
    mentioned = {m.table.name for m in tabs}
    for (start, end), options in sorted(found.items(), key=lambda kv: (-max(o[0] for o in kv[1]), kv[0][0] - kv[0][1])):
        if any(i in taken for i in range(start, end)) and max(o[0] for o in options) < 100:
            continue
        if any(lit.start < end and start < lit.end for lit in out):
            continue
        before = {m.col.name.lower() for m in cols if m.end == start}  # `steward Katarina Haddad`
        options.sort(key=lambda o: (-o[0], o[2].name.lower() not in before, o[2].table not in mentioned, o[1]))
        score, _, c, value = rank(options, f"literal:{start}")
        out.append(Literal(start, end, c, value, score))
    return out


def trailing_literals(qwords: list[str], raw: list[str], cols: list[ColMention], have: list[Literal],
                      tabs: list[TabMention]) -> list[Literal]:
    """`with <column phrase> <value>` / `named <value>`: the words up to the clause's end, as written."""
    out = []
    covered = {i for lit in have for i in range(lit.start, lit.end)}
    starts = [(m.end, m.col) for m in cols if m.start > 0 and qwords[m.start - 1] in ("with", "have", "has")]
    for t in tabs:
        label = t.table.label
        if label is not None:
            starts += [(t.end + 1, label) for _ in [0] if t.end < len(qwords) and qwords[t.end] == "named"]
    for begin, col in starts:
        end = begin
        while end < len(qwords) and qwords[end] not in _STOPS and end not in covered:
            end += 1
        if end > begin and begin not in covered and not col.numeric:
            out.append(Literal(begin, end, col, " ".join(raw[begin:end]), 0.0))
            covered |= set(range(begin, end))
    return out
