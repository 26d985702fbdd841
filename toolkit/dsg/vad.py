"""The Visual Abstractions benchmark layout: `<category>/<concept>/vqa.json` with `questions[]` holding
`image_filename`, `question_type`, `question_multiple_choice`, `answer_multiple_choice`.

The lettered options written inline ("... (a) 1 (b) 2") become the item's `choices` and leave the question
text, since every mode appends the choices as "Options: ..." again. An item whose image file is missing is
refused here (or counted and left out with `bad`), not at `run`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, make_record

OPTION_RE = re.compile(r"\(([A-Za-z])\)\s*([^()]+?)(?=\s*\([A-Za-z]\)|$)")


def options_of(question: str) -> list[str]:
    """The lettered options '(a) x (b) y' of a multiple-choice question, as written."""
    return [text.strip().rstrip(",;") for _, text in OPTION_RE.findall(question)]


def stem_of(question: str) -> str:
    """The question without its inline lettered options."""
    m = OPTION_RE.search(question)
    return question[:m.start()].strip() if m else question.strip()


def import_vad(directory: str | Path, bad: BadLines | None = None) -> Iterator[dict[str, Any]]:
    """dsg.item records of a VAD tree; with `bad`, an item whose image is missing is counted there and skipped."""
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
            item_id = f"{category}/{concept}/{i:04d}"
            image = f.parent / q["image_filename"]
            if not image.is_file():
                message = f"{f}: questions[{i}] (item {item_id}): image {image}: no such file"
                if bad is None:
                    raise InputError(message)
                bad.add(message)
                continue
            rec = make_record("dsg.item", id=item_id, image=str(image.resolve()), concept=concept,
                              category=category, question=stem_of(text) if choices else text, answer=answer,
                              question_type="choice" if choices else "open",
                              vad_question_type=q.get("question_type"))
            if choices:
                rec["choices"] = choices
            yield rec
