"""Reading anchor-format GeomRel files (a local copy; nothing is shipped) into geomrel.item bodies.

Two shapes occur: question files, one JSON object per line with `question`, `answer`, `relation`, and fine-tuning
files (`ftdata/*.jsonl`) with `prompt`, `gold`, `source`. A file holding one JSON list is read too. The level comes
from the folder (`basic` / `advanced` in the path), the domain from the relation code's prefix.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, json_items
from toolkit.geomrel.items import check_item

DOMAIN_OF_PREFIX = {"LL": "line", "LP": "line", "AA": "angle", "SL": "shape", "SP": "shape"}
FT_END = "Give me your choice at the end of your response."


def level_of(path: Path) -> str | None:
    parts = [p.lower() for p in path.parts]
    for level in ("basic", "advanced"):
        if any(level in p for p in parts):
            return level
    return None


def domain_of_code(code: str | None) -> str | None:
    if not code:
        return None
    return DOMAIN_OF_PREFIX.get(code.split("_")[0].upper())


def _stdin_items():
    """(where, number, object) for each line piped in, as json_items gives them for a file."""
    for lineno, line in enumerate(sys.stdin.read().splitlines(), start=1):
        if line.strip():
            try:
                yield f"<stdin>:{lineno}", lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                yield f"<stdin>:{lineno}", lineno, InputError(f"<stdin>:{lineno}: malformed JSON: {exc.msg}")


def load_file(path: Path | str, skip_bad: bool, bad: BadLines) -> list[dict]:
    items = []
    stdin = str(path) == "-"
    level = None if stdin else level_of(Path(path))
    stem = "stdin" if stdin else Path(path).stem
    for where, lineno, obj in (_stdin_items() if stdin else json_items(Path(path))):
        try:
            if isinstance(obj, InputError):
                raise obj
            if not isinstance(obj, dict):
                raise InputError(f"{where}: expected a JSON object")
            question = obj.get("question", obj.get("prompt"))
            if isinstance(question, str) and question.rstrip().endswith(FT_END):
                question = question.rstrip()[: -len(FT_END)].rstrip()
            code = obj.get("relation") or obj.get("source")
            answer = obj.get("answer", obj.get("gold"))
            if isinstance(answer, str):
                answer = answer.strip().rstrip(".").upper()[:1] or answer
            item = check_item({"question": question, "answer": answer}, where)
            items.append({"id": f"{stem}:{lineno}", "question": item["question"], "options": item["options"],
                          "answer": item["answer"], "relation": code, "level": level,
                          "domain": domain_of_code(code), "source": "<stdin>" if stdin else str(path)})
        except InputError as exc:
            if not skip_bad:
                raise
            bad.add(str(exc))
    return items


def load_paths(paths: list[str], skip_bad: bool, bad: BadLines) -> list[dict]:
    out = []
    for p in paths:
        if p == "-":
            out += load_file(p, skip_bad, bad)
            continue
        path = Path(p)
        if not path.exists():
            raise InputError(f"{path}: no such file")
        files = sorted(path.rglob("*.json*")) if path.is_dir() else [path]
        for f in files:
            out += load_file(f, skip_bad, bad)
    return out
