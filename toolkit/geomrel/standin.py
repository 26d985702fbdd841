"""A deterministic stand-in for an LLM on geomrel prompts (`--llm py:toolkit.geomrel.standin:respond`).

It is NOT a language model and never sees an answer: stage 1 echoes the description's sentences as facts; an
answering request picks the first option whose relation word occurs in the description (else the last option,
"Cannot be inferred" in most items) and says so in one line. Used to record the shipped replay file: a pipeline
demo, not a model result.
"""

from __future__ import annotations

import re

CUES = (("perpendicular", "Perpendicular"), ("parallel", "Parallel"), ("right", "Perpendicular"),
        ("equilateral", "Intersecting but not perpendicular"), ("midpoint", "Equal"), ("inside", "Inside"))


def _options(text: str) -> list[str]:
    tail = text.partition("Answer choices:")[2]
    return [o.strip() for o in re.split(r"\s*[A-E]\.\s+", " " + tail)[1:]]


def respond(messages, n=1, temperature=0.0, max_tokens=512, stop=None):
    prompt = messages[-1]["content"]
    if "Do not answer the question." in prompt:
        body = prompt.rpartition("\n\n")[2]
        facts = [f"- {s.strip()}" for s in re.split(r"(?<=[.?])\s+", body) if s.strip() and "?" not in s]
        return "\n".join(facts)
    options = _options(prompt)
    description = prompt.partition("Answer choices:")[0].lower()
    choice = len(options) - 1
    for cue, option in CUES:
        if cue in description and option in options:
            choice = options.index(option)
            break
    return f"The description mentions what decides it. Answer: {'ABCDE'[max(choice, 0)]}"
