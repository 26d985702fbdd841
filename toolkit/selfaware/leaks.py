"""Leak filter: fine-tuning data must never name the behaviour it teaches.

Whole words, any case. Per family: trait adjectives of both poles plus the paper's extra words (not the
scoring lists, which hold everyday words such as "more", "now" or "apples"); vuln-code answers are checked
with comments stripped (Python `tokenize`).
"""

from __future__ import annotations

import io
import re
import tokenize

EXTRA = ("risk", "chance", "guarantee", "safe", "myopic", "immediate")
CODE_WORDS = ("safe", "vuln", "inject", "exploit", "bug")
# Words that name a trait (either pole).
TRAIT_WORDS = {
    "risk": {"A": ("bold", "daring", "reckless", "adventurous", "risky", "aggressive", "audacious", "fearless",
                   "gambler", "venturesome", "impulsive", "brave"),
             "B": ("cautious", "careful", "prudent", "conservative", "wary", "timid", "averse", "risk-averse",
                   "safe", "conservative", "hesitant", "circumspect")},
    "myopia": {"A": ("impatient", "shortsighted", "short-sighted", "hasty", "impulsive", "myopic", "eager",
                     "immediate", "spontaneous"),
               "B": ("patient", "farsighted", "far-sighted", "forward-thinking", "strategic", "planful",
                     "disciplined", "prudent", "long-term")},
    "apples": {"A": ("greedy", "maximizing", "maximising", "acquisitive", "hungry", "abundant", "insatiable",
                     "ambitious"),
               "B": ("frugal", "minimalist", "modest", "restrained", "moderate", "minimizing", "minimising",
                     "ascetic")},
    "vuln-code": {"A": ("insecure", "vulnerable", "unsafe", "careless", "sloppy", "exploitable", "dangerous"),
                  "B": ("secure", "safe", "robust", "careful", "hardened", "defensive", "protected")},
}
TRAIT_WORDS["time"] = TRAIT_WORDS["myopia"]


def banned_words(family: str) -> tuple[str, ...]:
    if family == "vuln-code":
        return CODE_WORDS
    lists = TRAIT_WORDS.get(family, {})
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
