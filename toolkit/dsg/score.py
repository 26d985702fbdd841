"""Scoring answers: multiple choice by the exact option, counts numerically (`word2number`), open answers by
normalized exact match or, with `semantic`, MiniLM cosine >= 0.8."""

from __future__ import annotations

import re

from toolkit.dsg.prompts import clean_answer

SEMANTIC_THRESHOLD = 0.8


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", clean_answer(str(text)))).strip()


def same_answer(pred: str, gold: str) -> bool:
    """Normalized exact match, spaces ignored ('r1c2' equals 'r1 c2')."""
    return norm(pred).replace(" ", "") == norm(gold).replace(" ", "")


def to_number(text: str) -> float | None:
    """The first number in a text, digits or words ('three' -> 3)."""
    m = re.search(r"-?\d+(?:\.\d+)?", text)
    if m:
        return float(m.group())
    from word2number import w2n

    words = norm(text).split()
    for i in range(len(words)):
        for j in range(len(words), i, -1):
            try:
                return float(w2n.word_to_num(" ".join(words[i:j])))
            except ValueError:
                continue
    return None


def choice_of(pred: str, choices: list[str]) -> str | None:
    """The option the prediction names: an exact option, else the single option its words contain."""
    p = norm(pred)
    for c in choices:
        if p == norm(c):
            return c
    named = [c for c in choices if re.search(rf"\b{re.escape(norm(c))}\b", p)]
    return named[0] if len(named) == 1 else None


def correct(pred: str, gold: str, question_type: str, choices: list[str] | None = None, semantic=None) -> bool:
    if question_type == "choice" and choices:
        return choice_of(pred, choices) == gold
    if question_type == "count":
        a, b = to_number(pred), to_number(gold)
        return a is not None and b is not None and a == b
    if same_answer(pred, gold):
        return True
    return semantic is not None and semantic(pred, gold) >= SEMANTIC_THRESHOLD
