"""Any JSON value as a readable, collapsible HTML tree (for record types no family knows)."""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

LONG = 160  # strings longer than this fold behind a <details>
OPEN_DEPTH = 1  # containers nested deeper than this start folded


def scalar(value: Any) -> Markup:
    if isinstance(value, str):
        if len(value) > LONG:
            return Markup('<details class="jlong"><summary class="jstr">{}…</summary><pre>{}</pre></details>').format(
                value[:LONG], value)
        return Markup('<span class="jstr">{}</span>').format(value)
    css = "jnull" if value is None else "jbool" if isinstance(value, bool) else "jnum"
    return Markup('<span class="{}">{}</span>').format(css, json.dumps(value))


def tree(value: Any, depth: int = 0) -> Markup:
    if not isinstance(value, dict | list):
        return scalar(value)
    pairs = value.items() if isinstance(value, dict) else enumerate(value)
    if not value:
        return Markup('<span class="jnull">{}</span>').format("{}" if isinstance(value, dict) else "[]")
    rows = Markup("").join(
        Markup('<li><span class="jkey">{}</span>: {}</li>').format(key, tree(item, depth + 1)) for key, item in pairs)
    body = Markup('<ul class="jtree">{}</ul>').format(rows)
    if depth == 0:
        return body
    noun = "key" if isinstance(value, dict) else "item"
    size = f"{len(value)} {noun}{'' if len(value) == 1 else 's'}"
    opened = " open" if depth <= OPEN_DEPTH and len(value) <= 12 else ""
    return Markup('<details class="jnode"{}><summary>{}</summary>{}</details>').format(
        Markup(opened), size, body)


def first_fields(record: dict[str, Any], count: int = 4) -> str:
    """`key=value` for the first fields after type and schema, short enough for a summary line."""
    parts = []
    for key, value in record.items():
        if key in ("type", "schema"):
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts.append(f"{key}={text[:40]}{'…' if len(text) > 40 else ''}")
        if len(parts) == count:
            break
    return ", ".join(parts)
