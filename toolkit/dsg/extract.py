"""Schema extraction: an LLM writes a concept's schema in the notebook's notation, two shipped schemas
shown as few-shot examples. Unparsable output or a cycle is re-asked (up to `retries` times, the error
quoted); still bad afterwards, the command fails naming the concept."""

from __future__ import annotations

import re

from toolkit.core.assets import asset_path
from toolkit.core.errors import InputError, RuntimeFailure
from toolkit.dsg.schema import Schema, load_schema, parse_notation, to_notation

FEW_SHOT = ("maze", "tictactoe")
INSTRUCTION = (
    "A schema decomposes an abstract visual concept into the parts a viewer must find in an image, from "
    "concrete to abstract. Write it as a product of conditional probabilities: first "
    "p(image | concept=NAME) =, then one factor p(part | concept=NAME, parents...) per part, parents before "
    "children, and last p(image | parts...). Use hyphens inside multi-word parts. Reply with the one line only."
)


def few_shot() -> list[tuple[str, str]]:
    out = []
    for name in FEW_SHOT:
        s = load_schema(asset_path(f"dsg/schemas/{name}.schema.json"))
        out.append((s.name, to_notation(s)))
    return out


def extraction_messages(concept: str) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": INSTRUCTION}]
    for name, notation in few_shot():
        messages.append({"role": "user", "content": f"Concept: {name}"})
        messages.append({"role": "assistant", "content": notation})
    messages.append({"role": "user", "content": f"Concept: {concept}"})
    return messages


def notation_line(text: str) -> str:
    """The schema line of a reply (the first line that starts a p(image | concept=...) product)."""
    for line in text.splitlines():
        m = re.search(r"p\(\s*image\s*\|\s*concept=.*", line)
        if m:
            return m.group(0).strip().strip("`")
    return text.strip()


def extract_schema(llm, concept: str, retries: int = 2) -> Schema:
    messages = extraction_messages(concept)
    last = ""
    for _ in range(retries + 1):
        reply = llm.complete(messages, n=1, temperature=0.0, max_tokens=400).text
        try:
            return parse_notation(notation_line(reply), where=f"schema for {concept!r}")
        except InputError as exc:
            last = str(exc)
            messages = [*messages, {"role": "assistant", "content": reply},
                        {"role": "user", "content": f"That schema is invalid ({last}). Reply with a corrected one."}]
    raise RuntimeFailure(f"concept {concept!r}: no valid schema after {retries + 1} tries ({last})")
