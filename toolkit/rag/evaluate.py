"""`rag.score` records: EM, F1 and Acc with 95% bootstrap intervals, per configuration and per task.

Each record also says how long the reader's chains were: the mean calls and follow-ups a question, and for
IterDRAG the share of chains whose follow-ups match the question's hop count (`chain_matches_hops`: at most
n follow-ups can be asked, so a question of h > n hops matches with n). A reader that answers a 3-hop
question after two follow-ups (5 calls) shows there, whatever its accuracy."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.core.errors import InputError
from toolkit.core.records import make_record
from toolkit.core.stats import bootstrap_ci
from toolkit.rag import metrics
from toolkit.rag.sweep import task_of


def score_answers(rows: list[dict], gold: dict[str, dict], where: str, *, seed: int = 0) -> Iterator[dict]:
    groups: dict[str, list[tuple[dict, dict]]] = {}
    for r in rows:
        q = gold.get(r["id"])
        if q is None:
            raise InputError(f"{where}: answer for question '{r['id']}' has no gold question (field 'id')")
        groups.setdefault(r.get("config", "?"), []).append((r, q))
    for config, pairs in groups.items():
        by_task: dict[str, list[tuple[dict, dict]]] = {"all": pairs}
        for r, q in pairs:
            by_task.setdefault(task_of(q), []).append((r, q))
        for task, items in by_task.items():
            s = [metrics.scores(r["prediction"], q["answers"]) for r, q in items]
            fields = {}
            for key in ("em", "f1", "acc"):
                vals = [x[key] for x in s]
                fields[key] = round(sum(vals) / len(vals), 4)
                fields[f"{key}_ci95"] = [round(v, 4) for v in bootstrap_ci(vals, seed=seed)]
            cost = [r.get("effective_tokens", 0) for r, _ in items]
            yield make_record("rag.score", 1, config=config, task=task, n=len(items), **fields,
                              mean_effective_tokens=round(sum(cost) / len(cost), 1),
                              format_errors=sum(r.get("format_errors", 0) for r, _ in items), **chain_lengths(items))


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def chain_lengths(items: list[tuple[dict, dict]]) -> dict:
    """Mean calls and follow-ups a question; for IterDRAG answers, the share whose chain has one follow-up
    per hop (capped by the configuration's n)."""
    calls = [r["calls"] for r, _ in items if "calls" in r]
    follow = [(r, q) for r, q in items if "follow_ups" in r]
    out = {"calls": _mean(calls), "follow_ups": _mean([r["follow_ups"] for r, _ in follow])}
    chains = [(r, q) for r, q in follow if r.get("method") == "iterdrag" and q.get("hops")]
    if chains:
        out["chain_matches_hops"] = _mean([float(r["follow_ups"] == min(int(q["hops"]), int(r.get("n") or q["hops"])))
                                           for r, q in chains])
    return out


def recall_records(index, questions: list[dict], ks: list[int]) -> Iterator[dict]:
    """`rag.recall` per hop count and k: gold documents found by the question itself and by each gold
    sub-question (what IterDRAG's follow-ups can reach), separating retrieval from reading failures."""
    by_hop: dict[str, list[dict]] = {}
    for q in questions:
        by_hop.setdefault(task_of(q), []).append(q)
    depth = max(ks)
    for task, qs in sorted(by_hop.items()):
        full = index.top_many([q["question"] for q in qs], depth)
        steps = [s for q in qs for s in q.get("decomposition") or [] if s.get("question") and s.get("doc")]
        sub = index.top_many([s["question"] for s in steps], depth)
        for k in ks:
            hits = total = 0
            for q, docs in zip(qs, full, strict=True):
                gold = set(q.get("gold_docs") or [s["doc"] for s in q.get("decomposition") or [] if s.get("doc")])
                hits += len(gold & {d["id"] for d in docs[:k]})
                total += len(gold)
            sub_hits = sum(s["doc"] in {d["id"] for d in docs[:k]} for s, docs in zip(steps, sub, strict=True))
            yield make_record("rag.recall", 1, retriever=index.kind, task=task, k=k, questions=len(qs),
                              question_recall=round(hits / total, 4) if total else None,
                              subquery_recall=round(sub_hits / len(steps), 4) if steps else None)
