"""Reading the model's answers: the SQL of a response, keyword lists, example lists, A/B choices."""

from __future__ import annotations

import ast
import json
import re

_FENCE = re.compile(r"```(?:sql|sqlite)?\s*\n?(.*?)```", re.S | re.I)
_FINAL = re.compile(r"(?:final sql|sql)\s*:\s*(.+)$", re.I | re.S)


def extract_sql(text: str) -> str:
    """The last fenced SQL block; else what follows 'Final SQL:'; else the text from the last SELECT/WITH."""
    blocks = [b.strip() for b in _FENCE.findall(text or "") if b.strip()]
    if blocks:
        return _one_line(blocks[-1])
    m = _FINAL.search(text or "")
    if m:
        return _one_line(m.group(1).strip().split("\n\n")[0])
    starts = [m.start() for m in re.finditer(r"\b(SELECT|WITH)\b", text or "", re.I)]
    if starts:
        return _one_line((text or "")[starts[0]:].split("\n\n")[0])
    return _one_line(text or "")


def _one_line(sql: str) -> str:
    return " ".join(sql.strip().rstrip(";").split())


def parse_keywords(text: str) -> list[str]:
    m = re.search(r"\[.*\]", text or "", re.S)
    if m:
        try:
            value = ast.literal_eval(m.group(0))
            if isinstance(value, (list, tuple)):
                return [str(v).strip() for v in value if str(v).strip()]
        except (ValueError, SyntaxError):
            pass
    parts = re.split(r"[\n,;]+", text or "")
    return [p.strip(" -*'\"\t") for p in parts if p.strip(" -*'\"\t")]


def parse_examples(text: str) -> list[dict]:
    m = re.search(r"\[.*\]", text or "", re.S)
    if not m:
        return []
    try:
        items = json.loads(m.group(0))
    except json.JSONDecodeError:
        return []
    out = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("question"), str) and isinstance(item.get("sql"), str):
            out.append({"question": item["question"].strip(), "sql": _one_line(item["sql"])})
    return out


def parse_choice(text: str) -> str | None:
    m = re.search(r"\b([AB])\b", (text or "").strip())
    return m.group(1) if m else None
