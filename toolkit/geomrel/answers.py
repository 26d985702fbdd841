"""Reading a model's choice: the anchor's last-letter rule and a parser that skips point names."""

from __future__ import annotations

import re

# the letter itself must be a capital: "the answer is a right angle" names no choice
ANSWER_LINE = re.compile(r"(?i:answer)\s*(?i:is)?\s*[:：]?\s*\(?([A-E])\)?(?![A-Za-z'])")


def parse_anchor(reply: str) -> str | None:
    """The anchor's rule: the last 'X.' in the reply (so 'triangle ABC.' reads as C)."""
    found = re.findall(r"([A-Z])\.", reply)
    return found[-1] if found else None


def parse_robust(reply: str, options: list[str]) -> str | None:
    """'Answer: X' (last one), else a unique option text, else a standalone letter not inside a point name."""
    letters = "ABCDE"[: len(options)]
    marked = [m for m in ANSWER_LINE.findall(reply) if m in letters]
    if marked:
        return marked[-1]
    low = reply.lower()
    hits = {letters[i] for i, o in enumerate(options) if o and o.lower() in low}
    if len(hits) == 1:
        return hits.pop()
    # a lone capital that is neither glued to other capitals (AB, ∠ABC) nor a point after 'point'/'line'
    alone = [m.group(1) for m in re.finditer(r"(?<![A-Za-z'∠])([A-E])(?![A-Za-z'])", reply)
             if not re.search(r"(point|line|segment|triangle|vertex|at)\s*$", reply[: m.start()], re.IGNORECASE)]
    alone = [a for a in alone if a in letters]
    return alone[-1] if len(set(alone)) == 1 else None
