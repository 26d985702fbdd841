from __future__ import annotations

from toolkit.core.tokenizers import piece_tokenizer

CORPUS = ["SELECT customer_name FROM customer WHERE city = 'Oslo'\n  price REAL, -- examples: '12.5'"] * 5


def test_text_round_trips_exactly():
    tok = piece_tokenizer(CORPUS, 300)
    text = "SELECT T1.customer_name FROM customer AS T1\n  WHERE T1.price > 12.5 AND city = 'Oslo'"
    ids = tok(text, add_special_tokens=False)["input_ids"]
    assert tok.decode(ids) == text
    assert tok.unk_token_id not in ids


def test_unseen_name_is_spelled_the_same_in_every_context():
    tok = piece_tokenizer(CORPUS, 300)

    def pieces(text: str) -> list[str]:
        return tok.convert_ids_to_tokens(tok(text, add_special_tokens=False)["input_ids"])

    word = pieces("seedling")
    assert len(word) > 1 and "<unk>" not in word  # never seen whole: spelled by smaller pieces
    for context in ("FROM seedling AS", "T1.seedling_name", "(seedling)", "  seedling TEXT"):
        got = pieces(context)
        assert any(got[i:i + len(word)] == word for i in range(len(got))), context
