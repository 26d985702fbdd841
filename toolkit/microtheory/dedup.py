"""Deduplication of knowledge-store sentences with sentence embeddings (the paper uses SBERT).

Choice made here (the threshold and clustering are ours): leader clustering in a fixed order --
facts sorted by how many questions use them (desc), then first appearance -- where a fact joins
the first existing cluster whose leader has cosine similarity >= `threshold`. Default 0.9 for
all-MiniLM-L6-v2. Measured on the shipped data, true paraphrases score 0.84-0.98 while some
different facts about the same subject score 0.85-0.87 ("A tuna is a kind of fish." / "A tuna has
fins.", "A copper wire is made of copper." / "A copper wire conducts electricity."): the ranges
overlap, so no threshold is perfect. 0.9 makes no false merge there; the paraphrases it leaves
apart are merged afterwards by condensation, whose entailment check does not confuse them. The
leader (the most used phrasing) represents the cluster. Deterministic for a given embedder.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Cluster:
    text: str
    members: list[str] = field(default_factory=list)


def leader_clusters(texts: list[str], vectors: np.ndarray,
                    threshold: float = 0.9) -> tuple[list[Cluster], list[int]]:
    """Cluster `texts` (already in priority order); returns clusters and the cluster index of each text."""
    clusters: list[Cluster] = []
    leaders: list[np.ndarray] = []
    assign: list[int] = []
    for text, vec in zip(texts, vectors, strict=True):
        best, best_sim = -1, threshold
        if leaders:
            sims = np.stack(leaders) @ vec
            j = int(np.argmax(sims))
            if sims[j] >= best_sim - 1e-6:
                best = j
        if best < 0:
            clusters.append(Cluster(text=text, members=[text]))
            leaders.append(vec)
            assign.append(len(clusters) - 1)
        else:
            clusters[best].members.append(text)
            assign.append(best)
    return clusters, assign


def dedup(texts: list[str], embedder, threshold: float = 0.9) -> tuple[list[Cluster], dict[str, int]]:
    vectors = embedder.encode(texts) if texts else np.zeros((0, 1), dtype=np.float32)
    clusters, assign = leader_clusters(texts, vectors, threshold)
    return clusters, {t: a for t, a in zip(texts, assign, strict=True)}
