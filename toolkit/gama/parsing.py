"""Reading a player's answer out of free LLM text: a JSON object first, a loose `"key": value` next."""

from __future__ import annotations

import json
import re

_OBJECT = re.compile(r"\{[^{}]*\}", re.DOTALL)


class ParseError(ValueError):
    """The answer could not be read; the message says why (it is shown to the model on retry)."""


def json_objects(text: str) -> list[dict]:
    """Every flat JSON object found in `text`, in order (single quotes tolerated)."""
    found = []
    for match in _OBJECT.finditer(text):
        blob = match.group(0)
        for candidate in (blob, blob.replace("'", '"')):
            try:
                value = json.loads(candidate)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                found.append(value)
            break
    return found


def field(text: str, key: str):
    """The value of `key` in the last JSON object of `text` that has it, or a loose `key: value` match."""
    for obj in reversed(json_objects(text)):
        lowered = {str(k).lower(): v for k, v in obj.items()}
        if key in lowered:
            return lowered[key]
    loose = re.search(rf'"?{re.escape(key)}"?\s*[:=]\s*("[^"]*"|[-\w.]+)', text, re.IGNORECASE)
    if loose:
        return loose.group(1).strip('"')
    raise ParseError(f'no "{key}" field found; answer with a JSON object containing "{key}"')


def as_int(value, lo: float, hi: float, key: str) -> int:
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ParseError(f'"{key}" must be a number, got {value!r}') from None
    if number != int(number):
        raise ParseError(f'"{key}" must be an integer, got {value!r}')
    if not lo <= number <= hi:
        raise ParseError(f'"{key}" must be between {lo:g} and {hi:g}, got {number:g}')
    return int(number)


def as_choice(value, options: dict[str, object], key: str):
    word = str(value).strip().lower()
    if word in options:
        return options[word]
    raise ParseError(f'"{key}" must be one of {", ".join(sorted(options))}, got {value!r}')
