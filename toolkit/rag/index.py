"""An index directory: the corpus (docs.jsonl), its SHA-256, and the retriever's files.

bm25: the bm25s index saved under bm25/; dense: MiniLM vectors (normalised, float16) in dense.npy;
hybrid: both, fused by reciprocal rank. `meta.json` says which, over how many documents, from which
corpus (hash), so a run against another corpus's index is refused.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.rag.retrieve import BM25, Dense, Hybrid, doc_string

RETRIEVERS = ("bm25", "dense", "hybrid")


def corpus_hash(docs: list[dict]) -> str:
    h = hashlib.sha256()
    for d in docs:
        h.update(json.dumps([d["id"], d["title"], d["text"]], ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()


class Index:
    def __init__(self, docs: list[dict], retriever, kind: str, sha: str) -> None:
        self.docs, self.retriever, self.kind, self.sha = docs, retriever, kind, sha
        self.position = {d["id"]: i for i, d in enumerate(docs)}

    def top_many(self, queries: list[str], k: int) -> list[list[dict]]:
        if k <= 0:
            return [[] for _ in queries]
        return [[self.docs[i] for i in row] for row in self.retriever.search_many(list(queries), k)]

    def top(self, query: str, k: int) -> list[dict]:
        return self.top_many([query], k)[0]


def build(docs: list[dict], kind: str = "bm25", embed=None) -> Index:
    if kind not in RETRIEVERS:
        raise InputError(f"--retriever {kind}: expected one of {', '.join(RETRIEVERS)}")
    sha = corpus_hash(docs)
    bm25 = BM25(docs) if kind in ("bm25", "hybrid") else None
    dense = None
    if kind in ("dense", "hybrid"):
        dense = Dense(Dense.encode([doc_string(d) for d in docs], embed or _embedder()), embed)
    retriever = bm25 if kind == "bm25" else dense if kind == "dense" else Hybrid(bm25, dense)
    return Index(docs, retriever, kind, sha)


def _embedder():
    from toolkit.core.minilm import minilm_embedder

    return minilm_embedder()


def save(index: Index, out: str | Path) -> None:
    import numpy as np

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    with (out / "docs.jsonl").open("w", encoding="utf-8") as fh:
        for d in index.docs:
            fh.write(json.dumps(d, ensure_ascii=False) + "\n")
    r = index.retriever
    bm25 = r if index.kind == "bm25" else getattr(r, "bm25", None)
    dense = r if index.kind == "dense" else getattr(r, "dense", None)
    if bm25 is not None:
        bm25.model.save(str(out / "bm25"))
    if dense is not None:
        np.save(out / "dense.npy", dense.vectors)
    meta = {"type": "rag.index", "schema": 1, "retriever": index.kind, "documents": len(index.docs),
            "corpus_sha256": index.sha}
    (out / "meta.json").write_text(json.dumps(meta, indent=1))


def load(path: str | Path, *, expect_sha: str | None = None) -> Index:
    import numpy as np

    path = Path(path)
    meta_path = path / "meta.json"
    if not meta_path.exists():
        raise InputError(f"{path}: not a rag index (no meta.json); build one with `reason rag index`")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        kind, sha = meta["retriever"], meta["corpus_sha256"]
    except (json.JSONDecodeError, KeyError) as exc:
        raise InputError(f"{meta_path}: corrupted index metadata ({exc})") from None
    docs = [json.loads(line) for line in (path / "docs.jsonl").read_text(encoding="utf-8").splitlines() if line]
    if corpus_hash(docs) != sha:
        raise InputError(f"{path / 'docs.jsonl'}: corpus hash differs from meta.json (index modified?)")
    if expect_sha is not None and expect_sha != sha:
        raise InputError(f"{path}: index built from another corpus (sha256 {sha[:12]}, expected {expect_sha[:12]})")
    bm25 = dense = None
    if kind in ("bm25", "hybrid"):
        import bm25s

        bm25 = BM25.__new__(BM25)
        bm25._bm25s, bm25.n = bm25s, len(docs)
        bm25.model = bm25s.BM25.load(str(path / "bm25"))
    if kind in ("dense", "hybrid"):
        dense = Dense(np.load(path / "dense.npy"))
    retriever = bm25 if kind == "bm25" else dense if kind == "dense" else Hybrid(bm25, dense)
    return Index(docs, retriever, kind, sha)


def check_questions(index: Index, questions: list[dict], where: str) -> None:
    """Questions whose gold documents all miss the index come from another corpus."""
    gold = {d for q in questions for d in q.get("gold_docs", []) or []}
    gold |= {s.get("doc") for q in questions for s in q.get("decomposition", []) or [] if s.get("doc")}
    if gold and not gold & set(index.position):
        raise InputError(f"{where}: none of the questions' gold documents is in the index (another corpus's index?)")
