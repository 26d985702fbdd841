"""Entailment-based condensation of the deduplicated store (paper: facts entailed by other facts
are merged away so the microtheory stays general and non-redundant).

Choices made here: facts are visited from the least used (most question-specific) to the most
used. For a fact f, its `neighbors` nearest surviving facts by embedding are the candidate
premises; the verifier is asked whether one of them alone entails f (a paraphrase dedup missed, or
a more general statement) and then whether a pair of them entails f (e.g. "A salmon breathes with
gills." from "A salmon is a kind of fish." + "A fish breathes with gills."). When one does, f is
dropped and every proof using f uses those premises instead; the premises are locked (never
dropped later), so replacements never chain and proofs stay valid. Limiting candidates to embedding
neighbours keeps the verifier calls linear in the store size instead of quadratic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np


@dataclass
class Condensation:
    replaced: dict[int, list[int]] = field(default_factory=dict)  # dropped fact -> premises that entail it
    checks: int = 0


def condense(texts: list[str], support: list[int], vectors: np.ndarray, verifier, *, neighbors: int = 4,
             pairs: bool = True) -> Condensation:
    n = len(texts)
    result = Condensation()
    if n < 2:
        return result
    sims = np.asarray(vectors, dtype=np.float32) @ np.asarray(vectors, dtype=np.float32).T
    alive = np.ones(n, dtype=bool)
    locked = np.zeros(n, dtype=bool)
    order = sorted(range(n), key=lambda i: (support[i], i))
    for f in order:
        if locked[f]:
            continue
        cand = [j for j in np.argsort(-sims[f], kind="stable") if j != f and alive[j]][:neighbors]
        found = None
        for j in cand:
            result.checks += 1
            if verifier.entails([texts[j]], texts[f]):
                found = [int(j)]
                break
        if found is None and pairs:
            for a, b in combinations(cand, 2):
                result.checks += 1
                if verifier.entails([texts[a], texts[b]], texts[f]):
                    found = [int(a), int(b)]
                    break
        if found is not None:
            alive[f] = False
            locked[found] = True
            result.replaced[f] = found
    return result


def rewrite_proofs(proofs: list[tuple[int, frozenset[int]]], replaced: dict[int, list[int]]):
    """Replace dropped facts by their premises; drop duplicate proofs of a question."""
    out, seen = [], set()
    for q, facts in proofs:
        new = set()
        for f in facts:
            new.update(replaced.get(f, [f]))
        key = (q, frozenset(new))
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out
