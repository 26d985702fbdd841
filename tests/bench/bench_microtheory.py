"""Benchmark for `reason microtheory`: grounding gains per strategy, p-relevance, exactness, numba speed-up.

Runs the whole pipeline in-process on the shipped data with the deterministic stand-in model
(py:toolkit.microtheory.standin:complete) and the packaged MiniLM embedder, then prints and writes
bench-results/microtheory.json.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from toolkit.core.llm import from_uri  # noqa: E402
from toolkit.microtheory.data import load_corpus, load_questions  # noqa: E402
from toolkit.microtheory.distill import distill  # noqa: E402
from toolkit.microtheory.embed import load_embedder  # noqa: E402
from toolkit.microtheory.ground import Retriever, ground_question, summarize  # noqa: E402
from toolkit.microtheory.optimize import STRATEGIES, Instance, _coverage_counts, brute_force, select  # noqa: E402
from toolkit.microtheory.relevance import curve, match_facts, p_relevance  # noqa: E402
from toolkit.microtheory.store import build_store, verified_proofs  # noqa: E402
from toolkit.microtheory.theory import Theory  # noqa: E402
from toolkit.microtheory.verify import Verifier  # noqa: E402

ASSETS = ROOT / "assets" / "microtheory"
BUDGET = 24


def _theory(records, strategy):
    facts = {r["fact_id"]: r for r in records if r["type"] == "microtheory.fact"}
    sel = next(r for r in records if r["type"] == "microtheory.selection" and r["strategy"] == strategy)
    chosen = [{"fact_id": f, "text": facts[f]["text"]} for f in sel["facts"]]
    proofsets = [r for r in records if r["type"] == "microtheory.proofset"]
    return Theory("bench", strategy, chosen, facts, proofsets, {strategy: sel})


def _ground(qs, llm, ver, texts, caches):
    retriever = Retriever(texts)
    return summarize([ground_question(q, llm, ver, retriever, k=5, hyp_cache=caches[0], fact_cache=caches[1])
                      for q in qs])


def _python_counts(proofs, selected):
    full, part = set(), set()
    for q, fs in proofs:
        inside = len(fs & selected)
        if inside:
            part.add(q)
        if inside == len(fs):
            full.add(q)
    return len(full), len(part)


def main() -> None:
    t0 = time.perf_counter()
    llm = from_uri("py:toolkit.microtheory.standin:complete")
    ver = Verifier(llm)
    emb = load_embedder("minilm")
    train = load_questions(ASSETS / "qa.jsonl", split="train")
    test = load_questions(ASSETS / "qa.jsonl", split="test")
    docs = [d["text"] for d in load_corpus(ASSETS / "corpus.jsonl")]
    store = list(build_store(train, llm, ver, proofs=3, temperature=0.7))
    records = distill(store, emb, ver, budget=BUDGET, strategies=list(STRATEGIES))
    summary = next(r for r in records if r["type"] == "microtheory.summary")
    test_store = list(build_store(test, llm, ver, proofs=3, temperature=0.7))
    texts = [t for e in test_store for facts in verified_proofs(e) for t in facts]
    caches = ({}, {})
    base = _ground(test, llm, ver, docs, caches)
    kept = [r for r in records if r["type"] == "microtheory.fact" and r["kept"]]
    whole = _ground(test, llm, ver, docs + [r["text"] for r in kept], caches)
    results = {"corpus": base, f"corpus+store({len(kept)} facts)": whole}
    relevance = {}
    for strategy in STRATEGIES:
        th = _theory(records, strategy)
        results[f"corpus+{strategy}"] = _ground(test, llm, ver, docs + th.texts, caches)
        mapping = match_facts(texts, th, emb)
        chosen = {f["fact_id"] for f in th.facts}
        relevance[strategy] = {f"p={p}": p_relevance(test_store, mapping, chosen, p)["p_relevance"]
                               for p in (0.34, 0.5, 1.0)}
    th = _theory(records, "ilp-full")
    mapping = match_facts(texts, th, emb)
    points = curve(th, test_store, mapping, p=0.5, sizes=[5, 10, 20, 40], budget=BUDGET, strategy="ilp-full")

    rng = random.Random(0)
    exact = {"instances": 0, "ilp_full_equal": 0, "ilp_partial_equal": 0}
    for _ in range(40):
        nf, nq = rng.randint(6, 12), rng.randint(3, 10)
        inst = Instance(nf, nq, [(q, frozenset(rng.sample(range(nf), rng.randint(1, 3)))) for q in range(nq)
                                 for _ in range(rng.randint(1, 2))])
        k = rng.randint(1, nf // 2)
        exact["instances"] += 1
        exact["ilp_full_equal"] += select(inst, k, "ilp-full").full == brute_force(inst, k, "full")
        exact["ilp_partial_equal"] += select(inst, k, "ilp-partial").partial == brute_force(inst, k, "partial")

    big = Instance(60, 40, [(q, frozenset(rng.sample(range(60), rng.randint(1, 4)))) for q in range(40)
                            for _ in range(3)])
    masks = [rng.sample(range(60), 20) for _ in range(3000)]
    _coverage_counts(big.ptr, big.flat, big.pq, big.n_questions, np.zeros(60, dtype=np.bool_))
    t = time.perf_counter()
    for m in masks:
        mask = np.zeros(60, dtype=np.bool_)
        mask[m] = True
        _coverage_counts(big.ptr, big.flat, big.pq, big.n_questions, mask)
    t_numba = time.perf_counter() - t
    t = time.perf_counter()
    for m in masks:
        _python_counts(big.proofs, set(m))
    t_python = time.perf_counter() - t

    out = {
        "budget": BUDGET, "train_questions": len(train), "test_questions": len(test),
        "store": {k: summary[k] for k in ("proven", "raw_facts", "after_dedup", "after_condense")},
        "training_coverage": {r["strategy"]: {"full": r["full_rate"], "partial": r["partial_rate"]}
                              for r in records if r["type"] == "microtheory.selection"},
        "grounding_test": results,
        "grounded_rate_gain_ilp_full": round(results["corpus+ilp-full"]["grounded_rate"] - base["grounded_rate"], 4),
        "p_relevance_test": relevance,
        "curve_ilp_full_p0.5": points,
        "ilp_vs_brute_force": exact,
        "coverage_kernel_numba_vs_python_speedup": round(t_python / max(t_numba, 1e-9), 2),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    print(json.dumps(out, indent=2))
    (ROOT / "bench-results").mkdir(exist_ok=True)
    (ROOT / "bench-results" / "microtheory.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
