"""Word-level fast tokenizers built locally from a vocabulary (no downloads).

The small models the project trains on synthetic data (steer, kvcompress, aha) and the tiny
models in tests all use one: whitespace-split words (optionally single punctuation marks) with
<pad>, <s>, </s> and <unk> as special tokens.
"""

from __future__ import annotations

SPECIALS = ("<pad>", "<s>", "</s>", "<unk>")


def word_tokenizer(vocab: dict[str, int] | list[str], *, split_punctuation: bool = False,
                   extra_special_tokens: dict[str, str] | None = None):
    """A PreTrainedTokenizerFast over `vocab` (a token list, ids by position, or a token->id map)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    ids = dict(vocab) if isinstance(vocab, dict) else {t: i for i, t in enumerate(vocab)}
    core = Tokenizer(models.WordLevel(vocab=ids, unk_token="<unk>"))
    split = pre_tokenizers.WhitespaceSplit()
    core.pre_tokenizer = (pre_tokenizers.Sequence([split, pre_tokenizers.Punctuation("isolated")])
                          if split_punctuation else split)
    core.decoder = decoders.WordPiece(prefix="##", cleanup=False)
    extra = {"extra_special_tokens": extra_special_tokens} if extra_special_tokens else {}
    return PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", bos_token="<s>", eos_token="</s>",
                                   unk_token="<unk>", **extra)
