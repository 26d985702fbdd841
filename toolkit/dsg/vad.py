"""The Visual Abstractions benchmark layout: `<category>/<concept>/vqa.json` with `questions[]` holding
`image_filename`, `question_type`, `question_multiple_choice`, `answer_multiple_choice`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolkit.core.errors import InputError
from toolkit.core.records import make_record

OPTION_RE = re.compile(r"\(([A-Za-z])\)\s*([^()]+?)(?=\s*\([A-Za-z]\)|$)")


def options_of(question: str) -> list[str]:
    """The lettered options '(a) x (b) y' of a multiple-choice question, as written."""
    return [text.strip().rstrip(",;") for _, text in OPTION_RE.findall(question)]


def import_vad(directory: str | Path) -> Iterator[dict[str, Any]]:
    root = Path(directory)
    if not root.is_dir():
        raise InputError(f"{root}: no such directory")
    files = sorted(root.glob("*/*/vqa.json"))
    if not files:
        raise InputError(f"{root}: no <category>/<concept>/vqa.json found (not a Visual Abstractions directory)")
    for f in files:
        category, concept = f.parent.parent.name, f.parent.name
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputError(f"{f}: not JSON ({exc})") from None
        questions = data.get("questions") if isinstance(data, dict) else None
        if not isinstance(questions, list):
            raise InputError(f"{f}: no questions[] list")
        for i, q in enumerate(questions):
            for key in ("image_filename", "question_multiple_choice", "answer_multiple_choice"):
                if key not in q:
                    raise InputError(f"{f}: questions[{i}]: missing field {key!r}")
            text = q["question_multiple_choice"]
            choices = options_of(text)
            answer = str(q["answer_multiple_choice"]).strip()
            letter = re.fullmatch(r"\(?([A-Za-z])\)?", answer)
            if letter and choices and ord(letter.group(1).lower()) - 97 < len(choices):
                answer = choices[ord(letter.group(1).lower()) - 97]  # a lettered answer names its option
            rec = make_record("dsg.item", id=f"{category}/{concept}/{i:04d}",
                              image=str((f.parent / q["image_filename"]).resolve()), concept=concept,
                              category=category, question=text, answer=answer,
                              question_type="choice" if choices else "open",
                              vad_question_type=q.get("question_type"))
            if choices:
                rec["choices"] = choices
            yield rec
