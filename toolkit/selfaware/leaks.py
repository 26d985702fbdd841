"""Leak filter: fine-tuning data must never name the behaviour it teaches.

Whole words, any case. Per family: the pole words of the scoring lists (scoring.CATEGORIES) plus the
paper's extra words; vuln-code answers are checked with comments stripped (Python `tokenize`).
"""

from __future__ import annotations

import io
import re
import tokenize

from toolkit.selfaware.scoring import CATEGORIES

EXTRA = ("risk", "chance", "guarantee", "safe", "myopic", "immediate")
CODE_WORDS = ("safe", "vuln", "inject", "exploit", "bug")


def banned_words(family: str) -> tuple[str, ...]:
    if family == "vuln-code":
        return CODE_WORDS
    lists = CATEGORIES.get(family, {})
    words = [w for pole in ("A", "B") for w in lists.get(pole, ())]
    return tuple(dict.fromkeys([*words, *EXTRA]))


def _pattern(words: tuple[str, ...]) -> re.Pattern:
    return re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)


def strip_comments(code: str) -> str:
    """Python code without its comments (code that does not tokenize is checked as is)."""
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(code).readline) if t.type != tokenize.COMMENT]
        return tokenize.untokenize(toks)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return code


CODE_BLOCK = re.compile(r"```(?:python)?\n(.*?)```", re.DOTALL)


def text_to_check(text: str, family: str) -> str:
    if family != "vuln-code":
        return text
    return CODE_BLOCK.sub(lambda m: strip_comments(m.group(1)), text)


def find_leak(text: str, family: str) -> str | None:
    """The first banned word in `text` (as written there), or None."""
    m = _pattern(banned_words(family)).search(text_to_check(text, family))
    return m.group(1) if m else None


def example_leak(example: dict, family: str) -> str | None:
    for msg in example.get("messages", []):
        content = msg.get("content")
        if isinstance(content, str):
            hit = find_leak(content, family)
            if hit:
                return hit
    return None
