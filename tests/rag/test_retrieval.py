"""Retrievers: BM25 finds the gold document of every sub-question, RRF by hand, MiniLM dense search, index checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.core.errors import InputError
from toolkit.rag import index as ix
from toolkit.rag import world
from toolkit.rag.retrieve import BM25, Dense, recall_at_k, rrf

SMALL = {"person": 40, "city": 20, "country": 8, "company": 20}


def test_bm25_recall_at_4_for_gold_subqueries():
    w = world.generate(1001, entities=SMALL, per_hop=40, demo_per_hop=1)
    docs = [d.record() for d in w.docs]
    assert 180 <= len(docs) <= 220
    pos = {d["id"]: i for i, d in enumerate(docs)}
    steps = [s for q in w.questions for s in q.decomposition]
    recall = recall_at_k(BM25(docs), [s["question"] for s in steps], [{pos[s["doc"]]} for s in steps], 4)
    assert recall >= 0.95, recall


def test_rrf_on_hand_lists():
    # scores: 1 -> 1/61 + 1/63, 2 -> 1/62 + 1/61, 3 -> 1/63, 4 -> 1/62
    assert rrf([[1, 2, 3], [2, 4, 1]], 4) == [2, 1, 4, 3]
    assert rrf([[5], [6]], 2) == [5, 6]  # equal scores: by id
    assert rrf([[1, 2]], 1) == [1]


def test_minilm_dense_and_hybrid_index(tmp_path):
    docs = [{"id": "a", "title": "cats", "text": "the cat sat on the warm mat and purred"},
            {"id": "b", "title": "stocks", "text": "shares of the company fell after the earnings report"},
            {"id": "c", "title": "rain", "text": "heavy rainfall flooded the valley roads overnight"}]
    built = ix.build(docs, "hybrid")
    ix.save(built, tmp_path / "idx")
    loaded = ix.load(tmp_path / "idx")
    assert loaded.kind == "hybrid" and loaded.sha == ix.corpus_hash(docs)
    assert isinstance(loaded.retriever.dense, Dense)
    assert loaded.retriever.dense.vectors.dtype.name == "float16"
    # no shared words with the document: only the embedding can find it
    assert loaded.retriever.dense.search("a kitten resting on a rug", 1) == [0]
    assert [d["id"] for d in loaded.top("stock market drop for a firm", 1)] == ["b"]


def test_index_refuses_another_corpus_and_a_missing_one(tmp_path):
    docs = [{"id": "x", "title": "t", "text": "alpha beta"}, {"id": "y", "title": "u", "text": "gamma delta"}]
    ix.save(ix.build(docs), tmp_path / "idx")
    with pytest.raises(InputError, match="another corpus"):
        ix.load(tmp_path / "idx", expect_sha=ix.corpus_hash(docs[:1]))
    with pytest.raises(InputError, match="no meta.json"):
        ix.load(tmp_path / "nothing")
    with pytest.raises(InputError, match="another corpus"):
        ix.check_questions(ix.load(tmp_path / "idx"), [{"id": "q", "gold_docs": ["zz"]}], "q.jsonl")


def test_tied_documents_are_kept_by_corpus_order():
    """Replay keys hash the prompt, so which of several equal-scoring documents fills the last of k places
    must not depend on the CPU or on whether jax is installed (bm25s's own top-k does)."""
    docs = [{"id": str(i), "title": f"t{i}", "text": "apple pie" if i % 3 else "banana bread"} for i in range(12)]
    assert BM25(docs).search_many(["apple pie", "banana", "zzz unknown"], 3) == [[1, 2, 4], [0, 3, 6], [0, 1, 2]]
    same = Dense([[0.6, 0.8]] * 5 + [[1.0, 0.0]], embed=lambda texts: [[0.6, 0.8] for _ in texts])
    assert same.search("anything", 3) == [0, 1, 2]


def test_shipped_index_splits_words_as_the_pinned_tokenizer_does():
    """The world-1000 index was built with bm25s's English stop words; queries use the pinned copy, so a later
    bm25s cannot change which words a query keeps."""
    import bm25s

    from toolkit.rag.retrieve import doc_string, tokenize

    loaded = ix.load(Path(__file__).resolve().parents[2] / "assets" / "rag" / "world-1000" / "idx")
    words = {w for row in tokenize(bm25s, [doc_string(d) for d in loaded.docs], return_ids=False) for w in row}
    assert words == set(loaded.retriever.model.vocab_dict) - {""}
