"""Answer metrics: normalized exact match, ANLS (tau 0.5), VQA accuracy min(#match/3, 1), numeric."""

from __future__ import annotations

import re

METRICS = ("exact", "anls", "vqa", "numeric")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def normalize(text: str) -> str:
    """Lowercase, '$' and punctuation other than a decimal point dropped, spaces collapsed, '4.50' -> '4.5'."""
    text = str(text).lower().replace("$", "")
    text = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", text)
    text = re.sub(r"[^\w\s.]", " ", text)
    text = re.sub(r"\b(\d+)\.(\d*?)0+\b", lambda m: m.group(1) + ("." + m.group(2) if m.group(2) else ""), text)
    return " ".join(text.split())


def levenshtein(a: str, b: str) -> int:
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(a, b)


def similarity(a: str, b: str) -> float:
    """1 - lev / max length on normalized strings (1 for two empty strings)."""
    a, b = normalize(a), normalize(b)
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1.0 - levenshtein(a, b) / longest


def exact(pred: str, golds: list[str]) -> float:
    return float(any(normalize(pred) == normalize(g) for g in golds))


def anls(pred: str, golds: list[str], tau: float = 0.5) -> float:
    best = max(similarity(pred, g) for g in golds)
    return best if best >= tau else 0.0


def vqa(pred: str, golds: list[str]) -> float:
    """VQA accuracy over annotator answers; an item with one answer counts it as given by every annotator."""
    annotators = golds if len(golds) > 1 else golds * 10
    return min(sum(normalize(pred) == normalize(g) for g in annotators) / 3.0, 1.0)


def first_number(text: str) -> float | None:
    m = _NUMBER.search(str(text).replace(",", ""))
    return float(m.group()) if m else None


def numeric(pred: str, golds: list[str], rel: float = 1e-6) -> float:
    p = first_number(pred)
    if p is None:
        return 0.0
    for g in golds:
        v = first_number(g)
        if v is not None and abs(p - v) <= rel * max(1.0, abs(v)):
            return 1.0
    return 0.0


def score(pred: str | None, golds: list[str], metric: str) -> float:
    if pred is None:
        return 0.0
    return {"exact": exact, "anls": anls, "vqa": vqa, "numeric": numeric}[metric](pred, golds)
