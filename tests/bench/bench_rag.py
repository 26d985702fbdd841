"""Benchmark for `reason rag`: IterDRAG questions/s with batched `complete_many` against one call per
question on the shipped reader (k=8), and queries/s of BM25, MiniLM and hybrid retrieval on 20k documents.

Writes bench-results/rag.json. Run: PYTHONPATH=. python tests/bench/bench_rag.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from toolkit.core.assets import asset_path  # noqa: E402
from toolkit.core.llm import from_uri  # noqa: E402
from toolkit.rag import index as ix  # noqa: E402
from toolkit.rag import world  # noqa: E402
from toolkit.rag.methods import Config, Runner  # noqa: E402
from toolkit.rag.retrieve import BM25, Dense, Hybrid  # noqa: E402


class OneByOne:
    """The same backend seen through the base class's loop: one call per question per step."""

    def __init__(self, inner):
        self.inner = inner

    def complete_many(self, requests, **kw):
        return [self.inner.complete(m, **kw) for m in requests]


def iterdrag_speed(questions: int = 32) -> dict:
    w = world.generate(1005, per_hop=questions // 4 + 1, demo_per_hop=1)
    idx = ix.build([d.record() for d in w.docs])
    qs = [q.record() for q in w.questions if q.split == "test"][:questions]
    llm = from_uri(f"hf:{asset_path('rag/reader')}?device=cpu")
    llm.batch_size = 16
    cfg = Config("iterdrag", 8, 0, 3)
    out = {}
    for name, backend in (("batched", llm), ("one_by_one", OneByOne(llm))):
        t = time.perf_counter()
        Runner(backend, idx, keep_trace=False).run(qs, cfg)
        out[f"{name}_questions_per_s"] = round(len(qs) / (time.perf_counter() - t), 3)
    out["speedup"] = round(out["batched_questions_per_s"] / out["one_by_one_questions_per_s"], 2)
    out["goal_speedup"] = 3.0
    return out


def retrieval_speed(docs_n: int = 20_000, queries: int = 200) -> dict:
    docs, seed = [], 2000
    while len(docs) < docs_n:
        docs += [d.record() | {"id": f"{seed}-{d.id}"} for d in world.generate(seed, per_hop=1, demo_per_hop=1).docs]
        seed += 1
    docs = docs[:docs_n]
    qs = [q.question for q in world.generate(1000, per_hop=queries // 4, demo_per_hop=1).questions][:queries]
    out = {"documents": len(docs), "queries": len(qs)}
    t = time.perf_counter()
    bm25 = BM25(docs)
    out["bm25_index_s"] = round(time.perf_counter() - t, 2)
    from toolkit.core.minilm import minilm_embedder
    from toolkit.rag.retrieve import doc_string

    embed = minilm_embedder()
    t = time.perf_counter()
    dense = Dense(Dense.encode([doc_string(d) for d in docs], embed), embed)
    out["minilm_index_s"] = round(time.perf_counter() - t, 2)
    for name, r in (("bm25", bm25), ("minilm", dense), ("hybrid", Hybrid(bm25, dense))):
        r.search_many(qs[:4], 8)
        t = time.perf_counter()
        r.search_many(qs, 8)
        out[f"{name}_queries_per_s"] = round(len(qs) / (time.perf_counter() - t), 1)
    return out


def main() -> None:
    results = {"iterdrag": iterdrag_speed(), "retrieval": retrieval_speed()}
    print(json.dumps(results, indent=1))
    out = ROOT / "bench-results"
    out.mkdir(exist_ok=True)
    (out / "rag.json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
