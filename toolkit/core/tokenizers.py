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


# Letter runs, digit runs, single whitespace characters and single symbols. A word is cut the
# same way wherever it stands (after a space, a dot or an underscore), so a name the model has never
# seen is spelled by the same pieces in a schema, a question and the SQL it copies it into.
PIECE_PATTERN = r"[A-Za-z]+|[0-9]+|\s|[^A-Za-z0-9\s]"


def piece_tokenizer(texts, vocab_size: int, *, specials: tuple[str, ...] = SPECIALS, dropout: float | None = None):
    """A PreTrainedTokenizerFast with BPE pieces learned from `texts` inside the words of PIECE_PATTERN.

    Decoding concatenates pieces, so text round-trips exactly (spaces are tokens of their own). Printable
    ASCII and every character of `texts` are in the alphabet; an unseen word is spelled by the pieces it contains.
    """
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE(unk_token="<unk>", dropout=dropout))
    core.pre_tokenizer = pre_tokenizers.Split(Regex(PIECE_PATTERN), behavior="isolated")
    core.decoder = decoders.Fuse()
    import string

    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(specials), show_progress=False,
                                  initial_alphabet=list(string.printable.strip() + " \n\t"))
    core.train_from_iterator(texts, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", bos_token="<s>", eos_token="</s>",
                                   unk_token="<unk>", clean_up_tokenization_spaces=False)
