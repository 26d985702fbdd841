"""A word-level tokenizer built locally from the question/answer vocabulary of FailGen samples."""

from __future__ import annotations

import re
from collections.abc import Iterable

from toolkit.aha.prompt import QUESTION_TEMPLATE

SPECIALS = ["<pad>", "<s>", "</s>", "<unk>", "<image>"]
IMAGE_TOKEN = "<image>"
WORD_RE = re.compile(r"\w+|[^\w\s]")

# Words every AHA conversation can use even when the data did not show them.
BASE_TEXT = (
    QUESTION_TEMPLATE + " USER ASSISTANT Yes No yes no , . : ; ' \" ( ) - _ "
    "grasp slip translation rotation no_rotation wrong_sequence wrong_object x y z "
    "the gripper object robot arm did not close failed succeeded cube block lid drawer "
    "0 1 2 3 4 5 6 7 8 9 10"
)


def words_of(text: str) -> list[str]:
    return WORD_RE.findall(text)


def build_vocab(texts: Iterable[str]) -> list[str]:
    """Specials, then every word of BASE_TEXT and of `texts`, in first-seen order (deterministic)."""
    seen = dict.fromkeys(SPECIALS)
    for text in [BASE_TEXT, *texts]:
        for w in words_of(text):
            seen.setdefault(w, None)
    return list(seen)


def build_tokenizer(vocab: list[str]):
    """A fast word-level tokenizer: words and single punctuation marks are tokens."""
    from toolkit.core.tokenizers import word_tokenizer

    return word_tokenizer(vocab, split_punctuation=True, extra_special_tokens={"image_token": IMAGE_TOKEN})


def detokenize(text: str) -> str:
    """Undo the spaces a word-level decoder puts around punctuation."""
    text = re.sub(r"\s+([,.;:!?)])", r"\1", text)
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r"\s*([-_])\s*", r"\1", text)
    return text.strip()
