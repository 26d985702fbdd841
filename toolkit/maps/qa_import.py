"""`import-qa`: a problem list (question, LaTeX answer, image) into maps.question records.

Accepts a JSON list of problems, or an object whose values are such lists. Each problem needs a
question (`question`/`problem`/`text`), an answer (`answer`/`ans`; LaTeX such as `$-0.5 \\mathrm{~A}$`)
and an image name (`image`/`img`/`image_path`, or the problem's `id` with .jpg/.png).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.maps.answer import parse_number

_UNIT = re.compile(r"(Ω|\\Omega|ohm|V|A|W)\b|(Ω|\\Omega)")
UNITS = {"\\Omega": "Ω", "ohm": "Ω"}


def _first(item: dict, keys: tuple[str, ...]):
    return next((item[k] for k in keys if item.get(k) not in (None, "")), None)


def _unit(answer: str) -> str | None:
    m = _UNIT.search(answer.replace("\\mathrm", " ").replace("{", " ").replace("}", " ").replace("~", " "))
    if not m:
        return None
    unit = m.group(1) or m.group(2)
    return UNITS.get(unit, unit)


def import_qa(path: Path, images: Path, *, skip_bad: bool = False, bad: list[str] | None = None) -> Iterator[dict]:
    bad = [] if bad is None else bad
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if not images.is_dir():
        raise InputError(f"--images {images}: no such directory")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not JSON ({getattr(exc, 'msg', exc)})") from None
    items = data if isinstance(data, list) else [x for v in data.values() if isinstance(v, list) for x in v] \
        if isinstance(data, dict) else None
    if items is None:
        raise InputError(f"{path}: expected a list of problems")
    kept = 0
    for k, item in enumerate(items):
        where = f"{path}: problem {k}"
        try:
            record = _one(item, k, images, where)
        except InputError as exc:
            if not skip_bad:
                raise
            bad.append(str(exc))
            continue
        kept += 1
        yield record
    if not kept:  # an import of nothing is not a success, --skip-bad or not
        raise InputError(f"{path}: all {len(bad)} problem(s) rejected; first: {bad[0]}" if bad else
                         f"{path}: no problems in the file")


def _one(item, k: int, images: Path, where: str) -> dict:
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected an object")
    question = _first(item, ("question", "problem", "text"))
    answer = _first(item, ("answer", "ans"))
    if question is None:
        raise InputError(f"{where}: field 'question': missing")
    if answer is None:
        raise InputError(f"{where}: field 'answer': missing")
    value = parse_number(answer)
    if value is None:
        raise InputError(f"{where}: field 'answer': no number in {str(answer)[:40]!r}")
    pid = str(_first(item, ("id", "qid")) or k)
    name = _first(item, ("image", "img", "image_path"))
    candidates = [images / name] if name else [images / f"{pid}{s}" for s in (".jpg", ".png", ".jpeg")]
    image = next((c for c in candidates if c.is_file()), None)
    if image is None:
        raise InputError(f"{where}: field 'image': {candidates[0]} not found")
    return {"type": "maps.question", "schema": 1, "id": f"qa-{pid}", "circuit": f"qa-{pid}", "image": str(image),
            "text": str(question), "kind": "open", "value": value,
            "unit": _unit(str(answer)) if isinstance(answer, str) else None, "options": [], "letter": None,
            "answer_text": str(answer)}
