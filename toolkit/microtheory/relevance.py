"""p-relevance: how well a microtheory covers a topic given by a set of (held-out) questions.

Reading used here (the stored copy of the paper available while building this exposed only its
abstract, so the operational details are our choice): a question is *p-relevant* to microtheory M
when one of its verified proofs has at least a fraction p of its facts in M (and at least one).
A proof fact is "in M" when it is one of the paraphrases merged into a chosen fact, or its embedding
has cosine >= `threshold` (the dedup threshold) with such a paraphrase; a fact that condensation
replaced counts when all of its entailing premises are in M. The p-relevance of M for the topic is
the fraction of proven evaluation questions that are p-relevant. p=1 asks for whole proofs, small p
for any overlap.

The data-need curve rebuilds the microtheory from the first n training questions (seeded order)
of the distilled store, with the same strategy and budget, and measures p-relevance on the
evaluation questions for each n: where it flattens, more training questions stop paying off.
"""

from __future__ import annotations

import random

import numpy as np

from toolkit.microtheory.optimize import Instance, select
from toolkit.microtheory.store import verified_proofs


def _key(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


def match_facts(texts: list[str], theory, embedder, threshold: float = 0.9) -> dict[str, frozenset[str]]:
    """Map each proof sentence to the theory-file fact ids it stands for (empty set: no match)."""
    facts = theory.all_facts or {f["fact_id"]: {"fact_id": f["fact_id"], "text": f["text"], "members": [f["text"]],
                                                "entailed_by": []} for f in theory.facts}
    member_owner: dict[str, str] = {}
    members: list[str] = []
    for fid, rec in facts.items():
        for m in rec.get("members") or [rec["text"]]:
            member_owner.setdefault(_key(m), fid)
            members.append(m)

    def resolve(fid: str) -> frozenset[str]:
        via = facts[fid].get("entailed_by") or []
        return frozenset(via) if via else frozenset([fid])

    out: dict[str, frozenset[str]] = {}
    unmatched = []
    for t in dict.fromkeys(texts):
        fid = member_owner.get(_key(t))
        if fid is not None:
            out[t] = resolve(fid)
        else:
            unmatched.append(t)
    if unmatched and members:
        sims = embedder.encode(unmatched) @ embedder.encode(members).T
        for i, t in enumerate(unmatched):
            j = int(np.argmax(sims[i]))
            out[t] = resolve(member_owner[_key(members[j])]) if sims[i, j] >= threshold else frozenset()
    return out


def question_fraction(entry: dict, mapping: dict[str, frozenset[str]], chosen: set[str]) -> float:
    best = 0.0
    for facts in verified_proofs(entry):
        inside = sum(1 for t in facts if mapping.get(t) and mapping[t] <= chosen)
        best = max(best, inside / len(facts))
    return best


def p_relevance(entries: list[dict], mapping, chosen: set[str], p: float) -> dict:
    proven = [e for e in entries if verified_proofs(e)]
    fractions = {e["question_id"]: question_fraction(e, mapping, chosen) for e in proven}
    relevant = [q for q, fr in fractions.items() if fr > 0 and fr >= p - 1e-9]
    return {"p": p, "questions": len(entries), "proven": len(proven), "relevant": len(relevant),
            "p_relevance": round(len(relevant) / len(proven), 4) if proven else 0.0, "fractions": fractions}


def curve(theory, entries: list[dict], mapping, *, p: float, sizes: list[int], budget: int, strategy: str,
          seed: int = 0) -> list[dict]:
    order = list(theory.proofsets)
    random.Random(seed).shuffle(order)
    out = []
    for n in sizes:
        subset = order[: min(n, len(order))]
        ids = sorted({f for ps in subset for proof in ps["proofs"] for f in proof})
        pos = {f: i for i, f in enumerate(ids)}
        proofs = [(qi, frozenset(pos[f] for f in proof)) for qi, ps in enumerate(subset) for proof in ps["proofs"]]
        k = min(budget, len(ids))
        chosen = set()
        if k:
            sel = select(Instance(len(ids), len(subset), proofs), k, strategy)
            chosen = {ids[f] for f in sel.facts}
        rel = p_relevance(entries, mapping, chosen, p)
        out.append({"train_questions": len(subset), "facts_available": len(ids), "budget": k,
                    "p_relevance": rel["p_relevance"], "relevant": rel["relevant"], "proven": rel["proven"]})
    return out
