"""Retrievers over a corpus of {id, title, text}: BM25 (bm25s), dense MiniLM, hybrid by reciprocal rank fusion."""

from __future__ import annotations

from collections.abc import Callable

from toolkit.core.ranking import top_k

RRF_K = 60
# bm25s's English list and word pattern as of 0.3.16, pinned: queries must split into the same words as the
# shipped indexes whatever bm25s version is installed (the prompts, hence the replay keys, follow from them)
STOPWORDS = ("a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no",
             "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to",
             "was", "will", "with")
TOKEN_PATTERN = r"(?u)\b\w\w+\b"


def doc_string(doc: dict) -> str:
    return f"{doc['title']} {doc['text']}"


def tokenize(bm25s, texts: list[str], return_ids: bool = True):
    return bm25s.tokenize(texts, lower=True, token_pattern=TOKEN_PATTERN, stopwords=list(STOPWORDS),
                          return_ids=return_ids, show_progress=False)


class BM25:
    kind = "bm25"

    def __init__(self, docs: list[dict]) -> None:
        from toolkit.core.extras import require

        require("ml", "bm25s")
        import bm25s

        self._bm25s = bm25s
        self.n = len(docs)
        self.model = bm25s.BM25()
        self.model.index(tokenize(bm25s, [doc_string(d) for d in docs]), show_progress=False)

    def search_many(self, queries: list[str], k: int) -> list[list[int]]:
        """Top-k document indices per query, best first; equal scores go by index (see core.ranking)."""
        import numpy as np

        k = min(k, self.n)
        if k <= 0 or not queries:
            return [[] for _ in queries]
        # full score vectors, not bm25s's own top-k: which tied document it keeps depends on the machine
        tokens = tokenize(self._bm25s, list(queries), return_ids=False)
        out = []
        for words in tokens:
            scores = self.model.get_scores(list(words)) if words else np.zeros(self.n, dtype=np.float32)
            out.append(top_k(scores, k))
        return out

    def search(self, query: str, k: int) -> list[int]:
        return self.search_many([query], k)[0]


class Dense:
    """Normalised float16 MiniLM vectors; cosine by chunked matrix products."""

    kind = "dense"

    def __init__(self, vectors, embed: Callable[[list[str]], list[list[float]]] | None = None) -> None:
        import numpy as np

        self.vectors = np.asarray(vectors, dtype=np.float16)
        self.n = len(self.vectors)
        self._embed = embed

    @staticmethod
    def encode(texts: list[str], embed: Callable[[list[str]], list[list[float]]]):
        import numpy as np

        v = np.asarray(embed(texts), dtype=np.float32)
        v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
        return v.astype(np.float16)

    @property
    def embed(self):
        if self._embed is None:
            from toolkit.core.minilm import minilm_embedder

            self._embed = minilm_embedder()
        return self._embed

    def search_many(self, queries: list[str], k: int, chunk: int = 8192) -> list[list[int]]:
        import numpy as np

        k = min(k, self.n)
        if k <= 0 or not queries:
            return [[] for _ in queries]
        q = self.encode(list(queries), self.embed).astype(np.float32)
        scores = np.empty((len(queries), self.n), dtype=np.float32)
        for lo in range(0, self.n, chunk):
            scores[:, lo: lo + chunk] = q @ self.vectors[lo: lo + chunk].astype(np.float32).T
        return [top_k(row, k) for row in scores]

    def search(self, query: str, k: int) -> list[int]:
        return self.search_many([query], k)[0]


def rrf(rankings: list[list[int]], k: int, c: int = RRF_K) -> list[int]:
    """Reciprocal rank fusion: score(d) = sum over rankings of 1/(c + rank), rank from 1; ties by id."""
    score: dict[int, float] = {}
    for ranking in rankings:
        for rank, d in enumerate(ranking, start=1):
            score[d] = score.get(d, 0.0) + 1.0 / (c + rank)
    return sorted(score, key=lambda d: (-score[d], d))[:k]


class Hybrid:
    kind = "hybrid"

    def __init__(self, bm25: BM25, dense: Dense, depth: int = 50) -> None:
        self.bm25, self.dense, self.depth = bm25, dense, depth
        self.n = bm25.n

    def search_many(self, queries: list[str], k: int) -> list[list[int]]:
        if k <= 0:
            return [[] for _ in queries]
        depth = max(self.depth, k)
        a = self.bm25.search_many(queries, depth)
        b = self.dense.search_many(queries, depth)
        return [rrf([x, y], k) for x, y in zip(a, b, strict=True)]

    def search(self, query: str, k: int) -> list[int]:
        return self.search_many([query], k)[0]


def recall_at_k(retriever, queries: list[str], gold: list[set[int]], k: int) -> float:
    """Share of gold documents found in the top k of their query (micro-averaged)."""
    hits = total = 0
    for ranked, g in zip(retriever.search_many(queries, k), gold, strict=True):
        hits += len(g & set(ranked))
        total += len(g)
    return hits / total if total else 0.0
