"""EM and F1 with SQuAD normalisation; Acc = some normalised gold alias is contained in the prediction."""

from __future__ import annotations

import re
import string
from collections import Counter

_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize(text: str) -> str:
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(prediction: str, answers: list[str]) -> float:
    p = normalize(prediction)
    return float(any(p == normalize(a) for a in answers))


def f1(prediction: str, answers: list[str]) -> float:
    best = 0.0
    p = normalize(prediction).split()
    for a in answers:
        g = normalize(a).split()
        common = sum((Counter(p) & Counter(g)).values())
        if common:
            prec, rec = common / len(p), common / len(g)
            best = max(best, 2 * prec * rec / (prec + rec))
    return best


def accuracy(prediction: str, answers: list[str]) -> float:
    p = f" {normalize(prediction)} "
    return float(any(normalize(a) and f" {normalize(a)} " in p for a in answers))


def scores(prediction: str, answers: list[str]) -> dict[str, float]:
    return {"em": exact_match(prediction, answers), "f1": f1(prediction, answers), "acc": accuracy(prediction, answers)}
