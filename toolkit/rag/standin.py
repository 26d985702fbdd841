"""`py:toolkit.rag.standin:reader` — a rule reader of the prompt, for pipeline demos and replays.

It reads only the prompt: documents are matched against the world's sentence templates, the question's
relation nouns are parsed, and the next line is written from what the documents say. It never sees a
gold answer. Its output is a pipeline demo, not a model result.
"""

from __future__ import annotations

import re

from toolkit.rag import prompts
from toolkit.rag.world import RELATIONS

_PATTERNS = [(noun, re.compile(re.escape(t).replace(r"\{s\}", r"(?P<s>\S+)").replace(r"\{o\}", r"(?P<o>\S+)")))
             for _, _, noun, templates in RELATIONS.values() for t in templates]
_CHAIN = re.compile(r"^what is ((?:the \w+ of )+)(\S+) \?$")


def _facts(lines: list[str]) -> dict[tuple[str, str], str]:
    facts = {}
    for line in lines:
        if not line.startswith("document :"):
            continue
        text = line.split(" : ", 2)[-1]
        for noun, pat in _PATTERNS:
            m = pat.search(text)
            if m:
                facts[(m.group("s"), noun)] = m.group("o")
    return facts


def _parse(question: str) -> tuple[list[str], str] | None:
    m = _CHAIN.match(question.strip())
    if not m:
        return None
    nouns = re.findall(r"the (\w+) of ", m.group(1))
    return list(reversed(nouns)), m.group(2)


def next_line(prompt: str) -> str:
    lines = [x.strip() for x in prompt.splitlines() if x.strip()]
    qi = max((i for i, x in enumerate(lines) if x.startswith("question :")), default=None)
    if qi is None:
        return f"{prompts.ANSWER} unknown"
    parsed = _parse(lines[qi][len("question :"):])
    facts = _facts(lines)
    chain = lines[qi + 1:]
    iterative = lines[0] == prompts.INSTRUCTION["iterdrag"]
    if parsed is None:
        return f"{prompts.ANSWER} unknown"
    nouns, entity = parsed
    if not iterative:
        for noun in nouns:
            entity = facts.get((entity, noun))
            if entity is None:
                return f"{prompts.ANSWER} unknown"
        return f"{prompts.ANSWER} {entity}"
    answers = [x[len(prompts.INTERMEDIATE):].strip() for x in chain if x.startswith(prompts.INTERMEDIATE)]
    if chain and chain[-1] == prompts.FINAL:
        return answers[-1] if answers else "unknown"
    if chain and chain[-1].startswith(prompts.FOLLOW):
        sub = _parse(chain[-1][len(prompts.FOLLOW):])
        value = facts.get((sub[1], sub[0][0])) if sub else None
        return f"{prompts.INTERMEDIATE} {value or 'unknown'}"
    if len(answers) >= len(nouns):
        return f"{prompts.FINAL} {answers[-1]}"
    subject = answers[-1] if answers else entity
    return f"{prompts.FOLLOW} what is the {nouns[len(answers)]} of {subject} ?"


def reader(messages, n=1, temperature=0.0, max_tokens=256, stop=None):
    return [next_line(messages[-1]["content"])] * n


reader.stand_in = True
