"""Input files: multiple-choice questions and corpus documents, validated with file:line errors."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, read_records

LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    options: tuple[str, ...]
    answer: int  # index into options
    split: str = ""

    @property
    def answer_text(self) -> str:
        return self.options[self.answer]


def _answer_index(value, options: list[str], where: str) -> int:
    if isinstance(value, bool):
        raise InputError(f"{where}: field 'answer' must be a letter, an option index or the option text")
    if isinstance(value, int):
        if 0 <= value < len(options):
            return value
        raise InputError(f"{where}: field 'answer' index {value} is out of range for {len(options)} options")
    if isinstance(value, str):
        text = value.strip()
        if len(text) == 1 and text.upper() in LETTERS[: len(options)]:
            return LETTERS.index(text.upper())
        if text in options:
            return options.index(text)
    raise InputError(f"{where}: field 'answer' ({value!r}) is neither an option letter nor one of the options")


def load_questions(path: str | Path, *, split: str | None = None, skip_bad: bool = False,
                   bad: BadLines | None = None) -> list[Question]:
    """Questions from JSONL: {id?, question, options: [...], answer: letter|index|text, split?}."""
    out: list[Question] = []
    seen: set[str] = set()
    bad = bad if bad is not None else BadLines()
    for lineno, record in enumerate(read_records(path, skip_bad=skip_bad, bad=bad), start=1):
        where = f"{path}:{record.get('_line', lineno)}"
        try:
            q = _question(record, where, lineno)
        except InputError as exc:
            if not skip_bad:
                raise
            bad.add(str(exc))
            continue
        if q.id in seen:
            raise InputError(f"{where}: field 'id' {q.id!r} repeats an earlier question")
        seen.add(q.id)
        if split is None or q.split == split:
            out.append(q)
    if not out:
        raise InputError(f"{path}: no questions" + (f" with split '{split}'" if split else ""))
    return out


def _question(record: dict, where: str, lineno: int) -> Question:
    for name in ("question", "options", "answer"):
        if name not in record or record[name] in (None, ""):
            raise InputError(f"{where}: missing field '{name}'")
    options = record["options"]
    if not isinstance(options, list) or len(options) < 2 or not all(isinstance(o, str) and o for o in options):
        raise InputError(f"{where}: field 'options' must be a list of at least two non-empty strings")
    if not isinstance(record["question"], str):
        raise InputError(f"{where}: field 'question' must be a string")
    answer = _answer_index(record["answer"], options, where)
    return Question(id=str(record.get("id", f"line{lineno}")), question=record["question"].strip(),
                    options=tuple(o.strip() for o in options), answer=answer, split=str(record.get("split", "")))


def load_corpus(path: str | Path, *, skip_bad: bool = False, bad: BadLines | None = None) -> list[dict]:
    """Corpus documents from JSONL: {id?, text}; returns [{'id', 'text'}]."""
    docs = []
    for lineno, record in enumerate(read_records(path, required=("text",), skip_bad=skip_bad, bad=bad), start=1):
        text = record["text"]
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{path}:{lineno}: field 'text' must be a non-empty string")
        docs.append({"id": str(record.get("id", f"d{lineno}")), "text": text.strip()})
    if not docs:
        raise InputError(f"{path}: the corpus is empty")
    return docs
