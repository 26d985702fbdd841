"""The word vocabulary of AHA conversations (the tokenizer itself lives in toolkit.core.tiny_vlm)."""

from __future__ import annotations

from collections.abc import Iterable

from toolkit.aha.prompt import QUESTION_TEMPLATE
from toolkit.core import tiny_vlm
from toolkit.core.tiny_vlm import IMAGE_TOKEN, SPECIALS, WORD_RE, build_tokenizer, detokenize, words_of
from toolkit.failgen.prompts import OFFICIAL_QUESTION, WHITE_CELLS

# Words every AHA conversation can use even when the data did not show them.
BASE_TEXT = (
    QUESTION_TEMPLATE + " " + OFFICIAL_QUESTION + WHITE_CELLS + " USER ASSISTANT Yes No yes no , . : ; ' \" ( ) - _ "
    "grasp slip translation rotation no_rotation wrong_sequence wrong_object x y z "
    "the gripper object robot arm did not close failed succeeded cube block lid drawer "
    "0 1 2 3 4 5 6 7 8 9 10"
)


def build_vocab(texts: Iterable[str]) -> list[str]:
    """Specials, then every word of BASE_TEXT and of `texts`, in first-seen order (deterministic)."""
    return tiny_vlm.build_vocab(texts, BASE_TEXT)


__all__ = ["BASE_TEXT", "IMAGE_TOKEN", "SPECIALS", "WORD_RE", "build_tokenizer", "build_vocab", "detokenize",
           "words_of"]
