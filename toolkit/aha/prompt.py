"""The AHA question wording and how an answer splits into a verdict and an explanation.

The paper asks, for one sub-task shown as a grid of keyframes, whether it succeeded
("Yes"/"No") and, when it did not, why. Answers read "Yes" or "No, <explanation>"; the
binary verdict is the word before the first comma.
"""

from __future__ import annotations

import re

QUESTION_TEMPLATE = (  # FailGen's wording for grids in the earlier row order (front, overhead, wrist)
    'For the given sub-task, first determine whether it has succeeded by choosing from ["yes", "no"], '
    "and then explain the reason why the current sub-task has failed. "
    "The image shows the robot at successive keyframes (columns, numbered) from the front, overhead "
    'and wrist cameras (rows). Sub-task: "{subtask}"'
)

YES, NO = "Yes", "No"


def make_question(subtask: str, rows: tuple[str, ...] | None = None, future: str = "white") -> str:
    """The question FailGen asks about one sub-task shown in a grid with view rows `rows` (default: the
    official front, wrist, overhead) and future cells white or trimmed (used when a record does not
    carry its own question, and to reword a question for a model trained on another grid format)."""
    from toolkit.failgen.prompts import question

    return question(subtask.strip(), rows, future)


_ROW_WORDS = re.compile(r"top row is the (\w+) view; the middle row is the (\w+) view, "
                        r"and the bottom is the (\w+) view")


def rows_in_question(question: str) -> tuple[str, ...] | None:
    """The row order a question in the official wording names (NVlabs/AHA's and FailGen's), else None."""
    m = _ROW_WORDS.search(question)
    return tuple(m.groups()) if m else None


def verdict_word(answer: str) -> str:
    """The word before the first comma, lower-cased and stripped of punctuation ('' when none)."""
    head = answer.split(",", 1)[0].strip().lower()
    words = re.findall(r"[a-z]+", head)
    return words[0] if words else ""


def split_answer(answer: str) -> tuple[str | None, str]:
    """(label, explanation): label is 'Yes', 'No' or None when the answer starts with neither."""
    word = verdict_word(answer)
    label = YES if word == "yes" else NO if word == "no" else None
    _, comma, rest = answer.partition(",")
    explanation = rest.strip() if comma else ""
    return label, explanation


def make_answer(label: str, explanation: str = "") -> str:
    explanation = explanation.strip()
    return f"{label}, {explanation}" if explanation else label
