"""Distillation: knowledge store -> dedup -> condensation -> K-fact microtheory per strategy.

Produces records for the theory file:
  microtheory.fact       every deduplicated fact (kept or condensed away) with its paraphrases, the
                         questions whose condensed proofs use it and the store proofs it came from
  microtheory.proofset   each training question's proofs as fact ids after condensation
  microtheory.selection  one per strategy: the K chosen facts and the coverage they reach
  microtheory.summary    sizes at each stage
  microtheory.theory     the microtheory itself (the selection of the first strategy asked for)
"""

from __future__ import annotations

from toolkit.core.errors import InputError
from toolkit.core.records import make_record
from toolkit.microtheory.condense import condense, rewrite_proofs
from toolkit.microtheory.dedup import leader_clusters
from toolkit.microtheory.optimize import Instance, select
from toolkit.microtheory.store import verified_proof_ids, verified_proofs

SCHEMA = 1


def fact_id(i: int) -> str:
    return f"f{i:04d}"


def distill(entries: list[dict], embedder, verifier, *, budget: int, strategies: list[str],
            threshold: float = 0.9, neighbors: int = 4, source: str = "", timings: dict | None = None) -> list[dict]:
    """All theory-file records (deterministic: no timings in them; pass `timings` to collect seconds)."""
    proven = [e for e in entries if verified_proofs(e)]
    if not proven:
        raise InputError(f"{source or 'store'}: no question has a verified proof; nothing to distill")
    first: dict[str, int] = {}
    uses: dict[str, set[str]] = {}
    sources: dict[str, list[str]] = {}
    for e in proven:
        for pid, facts in zip(verified_proof_ids(e), verified_proofs(e), strict=True):
            for t in facts:
                first.setdefault(t, len(first))
                uses.setdefault(t, set()).add(e["question_id"])
                sources.setdefault(t, []).append(pid)
    raw = sorted(first, key=lambda t: (-len(uses[t]), first[t]))
    vectors = embedder.encode(raw)
    clusters, assign = leader_clusters(raw, vectors, threshold)
    cluster_of = dict(zip(raw, assign, strict=True))
    leader_vec = vectors[[raw.index(c.text) for c in clusters]]

    qindex = {e["question_id"]: i for i, e in enumerate(proven)}
    proofs = []
    for e in proven:
        for facts in verified_proofs(e):
            proofs.append((qindex[e["question_id"]], frozenset(cluster_of[t] for t in facts)))
    support = [0] * len(clusters)
    for c in range(len(clusters)):
        support[c] = len({q for q, fs in proofs if c in fs})
    cond = condense([c.text for c in clusters], support, leader_vec, verifier, neighbors=neighbors)
    proofs = rewrite_proofs(proofs, cond.replaced)
    kept = [c for c in range(len(clusters)) if c not in cond.replaced]
    if budget < 1:
        raise InputError(f"--budget {budget}: must be at least 1")
    if budget > len(kept):
        raise InputError(f"--budget {budget}: larger than the condensed store ({len(kept)} facts); "
                         f"pass --budget {len(kept)} or less")
    pos = {c: i for i, c in enumerate(kept)}
    inst = Instance(len(kept), len(proven), [(q, frozenset(pos[f] for f in fs)) for q, fs in proofs])
    selections = [select(inst, budget, s) for s in strategies]
    if timings is not None:
        timings.update({sel.strategy: sel.seconds for sel in selections})

    chosen_by: dict[int, list[str]] = {}
    for sel in selections:
        for f in sel.facts:
            chosen_by.setdefault(kept[f], []).append(sel.strategy)
    questions_of = {c: sorted({proven[q]["question_id"] for q, fs in proofs if c in fs}) for c in kept}
    records = []
    for c, cl in enumerate(clusters):
        dropped = c in cond.replaced
        records.append(make_record(
            "microtheory.fact", SCHEMA, fact_id=fact_id(c), text=cl.text, members=cl.members,
            questions=questions_of.get(c, sorted({q for t in cl.members for q in uses[t]})),
            sources=sorted({pid for t in cl.members for pid in sources[t]}),
            kept=not dropped, entailed_by=[fact_id(j) for j in cond.replaced.get(c, [])],
            selected_by=chosen_by.get(c, [])))
    by_q: dict[int, list[list[str]]] = {}
    for q, fs in proofs:
        by_q.setdefault(q, []).append(sorted(fact_id(f) for f in fs))
    for q, e in enumerate(proven):
        records.append(make_record("microtheory.proofset", SCHEMA, question_id=e["question_id"],
                                   hypothesis=e.get("hypothesis", ""), proofs=sorted(by_q.get(q, []))))
    for sel in selections:
        records.append(make_record(
            "microtheory.selection", SCHEMA, strategy=sel.strategy, budget=sel.budget,
            facts=[fact_id(kept[f]) for f in sel.facts], full=sel.full, partial=sel.partial,
            questions=len(proven), full_rate=round(sel.full / len(proven), 4),
            partial_rate=round(sel.partial / len(proven), 4), mean_fraction=round(sel.mean_fraction, 4),
            exact=sel.exact))
    records.append(make_record(
        "microtheory.summary", SCHEMA, questions=len(entries), proven=len(proven), raw_facts=len(raw),
        after_dedup=len(clusters), after_condense=len(kept), budget=budget, dedup_threshold=threshold,
        condensation_checks=cond.checks, embedder=getattr(embedder, "name", "?"), strategies=list(strategies)))
    theory = selections[0]
    text_of = {fact_id(c): clusters[c].text for c in range(len(clusters))}
    records.append(make_record(
        "microtheory.theory", SCHEMA, strategy=theory.strategy, budget=budget,
        facts=[{"fact_id": fact_id(kept[f]), "text": text_of[fact_id(kept[f])]} for f in theory.facts]))
    return records
