"""Parsing manipulation calls: `exec` chains (`NAME(args)->var; ...`) and the calls a model writes inline.

Names are case-insensitive and may carry an `_i` suffix (`grounding_1`), as in the CoM data. Arguments are
split at top-level commas only, so box text `[[x0,y0,x1,y1;...]]` stays one argument.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from toolkit.core.errors import InputError

MANIPULATIONS = ("GROUNDING", "CROP_AND_ZOOMIN", "OCR", "COUNTING", "CALCULATE", "LINE")
_CALL = re.compile(r"^\s*([A-Za-z_]+?)(?:_\d+)?\s*\((.*)\)\s*(?:->\s*`?([A-Za-z_][A-Za-z0-9_]*)`?)?\s*$", re.S)
_OPENER = {")": "(", "]": "["}
_INLINE = re.compile(r"\b(" + "|".join(MANIPULATIONS) + r")(?:_\d+)?\s*\(", re.I)


@dataclass
class Call:
    name: str
    args: list[str]
    var: str | None = None
    column: int = 1
    raw: str = ""
    extra: dict = field(default_factory=dict)


def split_top(text: str, sep: str) -> list[tuple[int, str]]:
    """Split at `sep` outside brackets/parentheses/backticks; each part with its 0-based start offset."""
    parts, depth, start, tick = [], 0, 0, False
    for i, ch in enumerate(text):
        if ch == "`":
            tick = not tick
        elif not tick and ch in "([":
            depth += 1
        elif not tick and ch in ")]":
            depth -= 1
        elif ch == sep and depth == 0 and not tick:
            parts.append((start, text[start:i]))
            start = i + 1
    parts.append((start, text[start:]))
    return parts


def unbalanced(text: str) -> tuple[int, str] | None:
    """The first bracket that does not pair up (0-based offset, message), outside backticks; None when all do."""
    stack: list[tuple[int, str]] = []
    tick = False
    for i, ch in enumerate(text):
        if ch == "`":
            tick = not tick
        elif tick:
            continue
        elif ch in "([":
            stack.append((i, ch))
        elif ch in ")]":
            if not stack or stack[-1][1] != _OPENER[ch]:
                return i, f"unmatched {ch!r}"
            stack.pop()
    if stack:
        i, ch = stack[0]  # the outermost: where the swallowing starts
        return i, f"{ch!r} is never closed"
    return None


def canonical_name(name: str) -> str | None:
    upper = re.sub(r"_\d+$", "", name.strip()).upper()
    return upper if upper in MANIPULATIONS else None


def parse_call(text: str, column: int = 1, where: str = "chain") -> Call:
    lead = len(text) - len(text.lstrip())
    if found := unbalanced(text):
        offset, problem = found
        raise InputError(f"{where}: column {column + offset - lead}: {problem} in {text.strip()!r} "
                         f"(expected NAME(args)->var)")
    m = _CALL.match(text)
    if not m:
        raise InputError(f"{where}: column {column}: cannot parse {text.strip()!r} (expected NAME(args)->var)")
    name = canonical_name(m.group(1))
    if name is None:
        raise InputError(f"{where}: column {column}: unknown manipulation {m.group(1)!r} "
                         f"(known: {', '.join(MANIPULATIONS)})")
    args = [a.strip() for _, a in split_top(m.group(2), ",") if a.strip()]
    return Call(name, args, m.group(3), column, text.strip())


def parse_chain(text: str, where: str = "chain") -> list[Call]:
    """`GROUNDING(red sign)->b; CROP_AND_ZOOMIN(b, 2)->i; OCR(i)->t` -> calls; errors name the column. A bracket
    left open would swallow the `;` after it (and the rest of the chain into one argument): an error."""
    if found := unbalanced(text):
        offset, problem = found
        raise InputError(f"{where}: column {offset + 1}: {problem} (expected NAME(args)->var; ...)")
    calls = []
    for start, part in split_top(text, ";"):
        if not part.strip():
            continue
        column = start + len(part) - len(part.lstrip()) + 1
        calls.append(parse_call(part, column, where))
    if not calls:
        raise InputError(f"{where}: empty chain")
    return calls


def last_inline_call(reply: str) -> Call | None:
    """The last `NAME(args)` a model wrote in a reply (the official runtime acts on that one), or None."""
    starts = list(_INLINE.finditer(reply))
    for m in reversed(starts):
        depth, i = 0, m.end() - 1
        for j in range(i, len(reply)):
            if reply[j] == "(":
                depth += 1
            elif reply[j] == ")":
                depth -= 1
                if depth == 0:
                    tail = re.match(r"\s*->\s*`?([A-Za-z_][A-Za-z0-9_]*)`?", reply[j + 1:])
                    body = reply[m.start():j + 1] + (f"->{tail.group(1)}" if tail else "")
                    try:
                        return parse_call(body, m.start() + 1, "reply")
                    except InputError as exc:  # the model's last call is malformed: that step's error
                        return Call(m.group(1).upper(), [], None, m.start() + 1, body, {"error": str(exc)})
        else:
            return Call(m.group(1).upper(), [], None, m.start() + 1, reply[m.start():],
                        {"error": f"reply: column {m.start() + 1}: unclosed call {reply[m.start():].strip()[:60]!r} "
                                  f"(a ')' is missing)"})
    return None
