"""The step format an LLM writes for CoM synthesis: `Step k: (name_i(arg)->var, description)` or
`Step k: (None, description)`; variables appear in backticks. k must increase strictly; parsing stops
at the first step that breaks the order (the rest is not trusted)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolkit.cogcom.chain import Call, parse_call, split_top
from toolkit.core.errors import InputError

_STEP = re.compile(r"Step\s+(\d+)\s*:", re.I)


@dataclass
class Step:
    k: int
    call: Call | None  # None: a reasoning step without a manipulation
    description: str
    error: str = ""


def parse_steps(text: str) -> list[Step]:
    marks = list(_STEP.finditer(text))
    steps: list[Step] = []
    for i, m in enumerate(marks):
        k = int(m.group(1))
        if steps and k <= steps[-1].k:
            break
        body = text[m.end(): marks[i + 1].start() if i + 1 < len(marks) else len(text)].strip()
        body = body.rstrip(";").strip()
        if body.startswith("(") and body.endswith(")"):
            body = body[1:-1]
        parts = split_top(body, ",")
        head = parts[0][1].strip()
        description = body[parts[1][0]:].strip() if len(parts) > 1 else ""
        if head.lower() in ("none", ""):
            steps.append(Step(k, None, description))
            continue
        try:
            steps.append(Step(k, parse_call(head, 1, f"step {k}"), description))
        except InputError as exc:
            steps.append(Step(k, None, description, error=str(exc)))
    return steps


def variables_in(text: str) -> list[str]:
    return re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", text)
