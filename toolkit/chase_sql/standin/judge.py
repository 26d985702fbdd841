"""The stand-in's pairwise selector: a judge that sees only the selection prompt.

It scores each candidate on what a careful reader can check without the answer:
the query ran and returned rows (not one NULL or 0), it uses the values the question names
(quoted or capitalised phrases, numbers), the columns the question and hint name, and the
hint's formulas; ties are broken by a hash of the prompt.
"""

from __future__ import annotations

import re

from toolkit.chase_sql.standin.reading import fold, last_line, parse_tables


def _result_score(result: str) -> float:
    if result.startswith("error"):
        return -3.0
    if result == "no rows":
        return -2.0
    if re.fullmatch(r"columns \([^)]*\): (None|0|0\.0)", result):
        return -1.0
    return 1.0


def _named(value: str, question: str) -> bool:
    """Most words of the value occur (perhaps misspelt) in the question."""
    from rapidfuzz import fuzz

    words, asked = fold(value).split(), fold(question).split()
    hits = sum(1 for w in words if any(fuzz.ratio(w, a) >= 80 for a in asked))
    return bool(words) and hits >= max(1, len(words) / 2)


def _literal_score(sql: str, question: str, hint: str) -> float:
    """Values of the question and hint that the query quotes; capitalised names it leaves out cost."""
    quoted = [v.strip("%") for v in re.findall(r"'((?:[^']|'')*)'", sql)]
    score = sum(1.5 if _named(v, question + " " + hint) else -0.5 for v in quoted if v)
    names = re.findall(r"(?<!^)(?<![.?!] )\b([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)", question)
    score -= sum(1.0 for n in names if not any(_named(n, v) for v in quoted))
    numbers = set(re.findall(r"\b\d+\b", question))
    return score + 0.5 * sum(1 for n in numbers if re.search(rf"\b{n}\b", sql))


def _projection_score(sql: str, question: str, columns: list[str]) -> float:
    """The selected columns: named by the question (+), ids (-), or echoing their own filter (-)."""
    m = re.match(r"\s*SELECT\s+(.*?)\s+FROM\s", sql, re.I | re.S)
    if not m:
        return 0.0
    words = set(re.findall(r"\w+", fold(question)))
    shown = m.group(1).lower()
    bare = re.sub(r"\b(count|sum|avg|min|max)\s*\([^()]*\)", "", shown)  # ids inside COUNT(...) are fine
    picked = {c for c in columns if re.search(rf"\b{re.escape(c.lower())}\b", shown)}
    score = 0.0
    for c in picked:
        low = c.lower()
        if low.replace("_", " ") in fold(question) or low + "s" in words or low[:-1] + "ies" in words:
            score += 1.0
        if (low.endswith("_id") or low == "id") and re.search(rf"\b{re.escape(low)}\b", bare):
            score -= 1.5
        where = sql.lower().split(" where ", 1)[1] if " where " in sql.lower() else ""
        if re.search(rf"\b{re.escape(low)}\s*(=|>|<)", where):
            score -= 1.0
    if words & {"different", "distinct", "unique"} and "distinct" in m.group(1).lower():
        score += 1.0
    return score


def _column_score(sql: str, question: str, hint: str, columns: list[str]) -> float:
    words = fold(question + " " + hint).replace("_", " ")
    used = {c for c in columns if re.search(rf"\b{re.escape(c.lower())}\b", sql.lower())}
    named = {c for c in columns if c.lower().replace("_", " ") in words}
    return len(used & named) - 0.25 * len(used - named)


def _hint_score(sql: str, hint: str) -> float:
    pieces = re.findall(r"\b(?:MAX|MIN|AVG|SUM|COUNT)\([^()]*\)", hint)
    flat = re.sub(r"\w+\.", "", sql.replace(" ", "")).lower()
    return sum(1.0 for piece in pieces if piece.replace(" ", "").lower() in flat)


def score(sql: str, result: str, question: str, hint: str, columns: list[str]) -> float:
    return (2 * _result_score(result) + _literal_score(sql, question, hint) + _projection_score(sql, question, columns)
            + _column_score(sql, question, hint, columns) + _hint_score(sql, hint))


def choose(prompt: str, coin: float) -> str:
    blocks = dict(re.findall(r"Candidate ([AB]):\n```sql\n(.*?)\n```", prompt, re.S))
    results = dict(re.findall(r"^Result ([AB]): (.*)$", prompt, re.M))
    if set(blocks) != {"A", "B"}:
        return "A"
    question, hint = last_line(prompt, "Question"), last_line(prompt, "Hint")
    hint = "" if hint == "none" else hint
    columns = [c.name for t in parse_tables(prompt.split("Database schema:", 1)[-1]) for c in t.cols]
    a = score(blocks["A"], results.get("A", ""), question, hint, columns)
    b = score(blocks["B"], results.get("B", ""), question, hint, columns)
    if abs(a - b) < 1e-9:
        return "A" if coin < 0.5 else "B"
    return "A" if a > b else "B"
