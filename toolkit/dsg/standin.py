"""A deterministic stand-in schema writer for `py:toolkit.dsg.standin:schema_llm`: it reads only the concept
name of the last message and writes a generic three-level schema (parts, their arrangement, their
states). Its output is a pipeline demo, not a model result."""

from __future__ import annotations

import re

from toolkit.core.llm.base import message_text


def schema_llm(messages, n=1, temperature=0.0, max_tokens=256, stop=None):
    m = re.search(r"Concept:\s*(.+)", message_text(messages[-1]))
    name = re.sub(r"\s+", "-", (m.group(1) if m else "concept").strip().lower())
    c = f"concept={name}"
    text = (f"p(image | {c}) = p(parts | {c}) p(arrangement | {c}, parts) p(states | {c}, parts, arrangement) "
            "p(image | parts, arrangement, states)")
    return [text] * n
