"""Token ids for training texts, with per-text re-spelling of words (segmentation dropout).

The shipped tokenizer spells a word it learned as one piece and an unseen word (a test schema's
table or column name) as several. So that copying a several-piece name is practised, each training
text re-spells a share of its words with BPE dropout, the same way everywhere in the text: the
schema, the question and the SQL still agree piece for piece.
"""

from __future__ import annotations

import json
import random
import re

from toolkit.core.tokenizers import PIECE_PATTERN

_PIECE = re.compile(PIECE_PATTERN)


class Speller:
    def __init__(self, tokenizer, respell_share: float = 0.3, dropout: float = 0.5) -> None:
        from tokenizers import Tokenizer

        self.tok = tokenizer
        state = json.loads(tokenizer.backend_tokenizer.to_str())
        state["model"]["dropout"] = dropout
        self.dropped = Tokenizer.from_str(json.dumps(state))
        self.share = respell_share
        self._plain: dict[str, list[int]] = {}

    def plain(self, piece: str) -> list[int]:
        if piece not in self._plain:
            self._plain[piece] = self.tok.backend_tokenizer.encode(piece, add_special_tokens=False).ids
        return self._plain[piece]

    def encode(self, prompt: str, target: str, rng: random.Random | None) -> tuple[list[int], int]:
        """Ids of `<s>` + prompt + target + `</s>`, and where the target starts."""
        tok = self.tok
        spelled: dict[str, list[int]] = {}

        def ids_of(text: str) -> list[int]:
            out: list[int] = []
            for piece in _PIECE.findall(text):
                if rng is not None and piece.isalpha() and len(piece) > 1:
                    if piece not in spelled:
                        spelled[piece] = (self.dropped.encode(piece, add_special_tokens=False).ids
                                          if rng.random() < self.share else self.plain(piece))
                    out += spelled[piece]
                else:
                    out += self.plain(piece)
            return out

        body = prompt[len(tok.bos_token):] if prompt.startswith(tok.bos_token) else prompt
        head = [tok.bos_token_id] + ids_of(body)
        return head + ids_of(target) + [tok.eos_token_id], len(head)
