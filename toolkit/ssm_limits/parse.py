"""Read a model's reply: 'step i: VALUE' lines and the last 'Answer: ...'. Unparsable text is not an error:
the answer is None and the item scores as `parse`."""

from __future__ import annotations

import re

STEP = re.compile(r"^\s*\**\s*step\s*(\d+)\s*\**\s*[:.)-]\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
ANSWER = re.compile(r"answer\s*\**\s*:\s*\**\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
ZEBRA_STEP = re.compile(r"(?:the\s+)?([a-z]+)\s+is\s+in\s+house\s+(\d+)", re.IGNORECASE)


def normalize(task: str, text: str | None) -> str | None:
    if text is None:
        return None
    t = text.strip().strip("*`").rstrip(".").strip()
    if task == "zebra":
        return re.sub(r"\s+", " ", t.lower().replace(" ;", ";"))
    if task == "mult":
        return t.replace(",", "").replace(" ", "")
    if task == "dp":
        return " ".join(re.findall(r"[01]", t))
    return t.split()[-1] if t.split() else t


def parse_reply(task: str, text: str) -> dict:
    """{'steps': [(node key or step index, value)], 'answer': str | None}."""
    steps = []
    for m in STEP.finditer(text):
        body = m.group(2)
        if task == "zebra":
            z = ZEBRA_STEP.search(body)
            if z:
                steps.append([f"h:{z.group(1).lower()}", z.group(2)])
        else:
            words = body.replace(",", "").split()
            steps.append([int(m.group(1)), words[-1].strip("*`.") if words else ""])
    answers = ANSWER.findall(text)
    return {"steps": steps, "answer": normalize(task, answers[-1]) if answers else None}
