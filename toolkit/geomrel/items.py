"""Checking an item record: a question with options, a valid answer letter."""

from __future__ import annotations

from toolkit.core.errors import InputError
from toolkit.geomrel.grammar import split_question


def check_item(rec: dict, where: str) -> dict:
    question = rec.get("question", rec.get("prompt"))
    if not isinstance(question, str) or not question.strip():
        raise InputError(f"{where}: field 'question': empty or missing")
    body, options = split_question(question)
    options = rec.get("options") or options
    if not options:
        raise InputError(f"{where}: field 'question': no answer choices")
    letters = [c for c in question.partition("Answer choices:")[2].split() if len(c) == 2 and c[1] == "."]
    if len(letters) != len(set(letters)):
        raise InputError(f"{where}: field 'question': duplicate option letters")
    answer = rec.get("answer", rec.get("gold"))
    if answer is not None and (not isinstance(answer, str) or not "A" <= answer[:1] <= "ABCDE"[len(options) - 1]):
        raise InputError(f"{where}: field 'answer': {answer!r} is not one of the options")
    return {**rec, "id": rec.get("id") or where, "question": question, "options": options, "answer": answer}
