"""`import-qa`: a problem list (question, LaTeX answer, image) into maps.question records.

Accepts a JSON list of problems, or an object whose values are such lists. Each problem needs a
question (`question`/`problem`/`text`), an answer and an image name (`image`/`img`/`image_path`, or the
problem's `id` with .jpg/.png). The answer is the anchor's `golden_answer`, an object from each asked
quantity to its LaTeX value (`{"$U_{\\mathrm{ab}}$": "$-5 \\mathrm{~V}$"}`), or a single `answer`/`ans`.
A problem that asks for several quantities becomes one question per quantity (ids `qa-<id>-1`, `-2`, ...),
each naming its quantity in `target` and at the end of its text.
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
            records = _one(item, k, images, where)
        except InputError as exc:
            if not skip_bad:
                raise
            bad.append(str(exc))
            continue
        kept += 1
        yield from records
    if not kept:  # an import of nothing is not a success, --skip-bad or not
        raise InputError(f"{path}: all {len(bad)} problem(s) rejected; first: {bad[0]}" if bad else
                         f"{path}: no problems in the file")


def _part_image(images: Path, pid: str, where: str) -> Path | None:
    """The anchor names the figure of a problem's numbered part `<id>-<part>.jpg` (problem `1-16` asks part
    (3), its figure is `1-16-3.jpg`): such a file is the problem's image when it is the only one."""
    found = sorted(p for p in images.iterdir() if p.suffix.lower() in (".jpg", ".png", ".jpeg")
                   and re.fullmatch(re.escape(pid) + r"-\d+", p.stem))
    if len(found) > 1:
        raise InputError(f"{where}: field 'image': no {pid}.jpg and several part figures: "
                         f"{', '.join(p.name for p in found[:3])}")
    return found[0] if found else None


def _answers(item: dict, where: str) -> list[tuple[str | None, object]]:
    """(quantity, answer) pairs: the golden_answer object's entries in order, or one plain answer."""
    golden = item.get("golden_answer")
    if isinstance(golden, dict):
        if not golden:
            raise InputError(f"{where}: field 'golden_answer': empty object")
        return [(str(key), value) for key, value in golden.items()]
    answer = golden if golden not in (None, "") else _first(item, ("answer", "ans"))
    if answer is None:
        raise InputError(f"{where}: field 'answer': missing (neither 'golden_answer' nor 'answer')")
    return [(None, answer)]


def _one(item, k: int, images: Path, where: str) -> list[dict]:
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected an object")
    question = _first(item, ("question", "problem", "text"))
    if question is None:
        raise InputError(f"{where}: field 'question': missing")
    answers = _answers(item, where)
    values = []
    for target, answer in answers:
        value = parse_number(answer)
        if value is None:
            field = f"golden_answer.{target}" if target is not None else "answer"
            raise InputError(f"{where}: field '{field}': no number in {str(answer)[:40]!r}")
        values.append(value)
    pid = str(_first(item, ("id", "qid")) or k)
    name = _first(item, ("image", "img", "image_path"))
    candidates = [images / name] if name else [images / f"{pid}{s}" for s in (".jpg", ".png", ".jpeg")]
    image = next((c for c in candidates if c.is_file()), None)
    if image is None and not name:
        image = _part_image(images, pid, where)
    if image is None:
        raise InputError(f"{where}: field 'image': {candidates[0]} not found")
    out = []
    for j, ((target, answer), value) in enumerate(zip(answers, values, strict=True), start=1):
        several = len(answers) > 1
        text = f"{question}\n{target} = ?" if several else str(question)
        record = {"type": "maps.question", "schema": 1, "id": f"qa-{pid}-{j}" if several else f"qa-{pid}",
                  "circuit": f"qa-{pid}", "image": str(image), "text": text, "kind": "open", "value": value,
                  "unit": _unit(str(answer)) if isinstance(answer, str) else None, "options": [],
                  "letter": None, "answer_text": str(answer)}
        if target is not None:
            record["target"] = target
        if "is_forward" in item:
            record["is_forward"] = bool(item["is_forward"])
        out.append(record)
    return out
