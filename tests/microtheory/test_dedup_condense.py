import numpy as np
import pytest

from toolkit.core.llm import from_uri
from toolkit.microtheory.condense import condense, rewrite_proofs
from toolkit.microtheory.dedup import dedup, leader_clusters
from toolkit.microtheory.embed import BowEmbedder, load_embedder
from toolkit.microtheory.verify import Verifier

STANDIN = "py:toolkit.microtheory.standin:complete"


@pytest.fixture(scope="module")
def minilm():
    return load_embedder("minilm")


def test_minilm_dedup_merges_paraphrases_keeps_distinct(minilm):
    texts = ["A fish breathes with gills.", "A trout is a kind of fish.", "Fish breathe with gills.",
             "A salmon is a kind of fish.", "Trout are a type of fish.", "A fish lives in water.",
             "A tuna is a kind of fish.", "A tuna has fins.", "Insects have six legs.", "An insect has six legs."]
    clusters, assign = dedup(texts, minilm)  # default threshold 0.9
    assert assign["Fish breathe with gills."] == assign["A fish breathes with gills."]
    assert assign["Trout are a type of fish."] == assign["A trout is a kind of fish."]
    assert assign["Insects have six legs."] == assign["An insect has six legs."]
    distinct = ["A fish breathes with gills.", "A trout is a kind of fish.", "A salmon is a kind of fish.",
                "A fish lives in water.", "A tuna is a kind of fish.", "A tuna has fins.", "Insects have six legs."]
    assert len({assign[t] for t in distinct}) == len(distinct) == len(clusters)
    assert clusters[0].members == ["A fish breathes with gills.", "Fish breathe with gills."]
    # the similarity ranges of paraphrases and of different facts overlap: at 0.85 two facts merge wrongly
    _, loose = dedup(texts, minilm, threshold=0.85)
    assert loose["A tuna has fins."] == loose["A tuna is a kind of fish."]


def test_leader_clustering_order_and_threshold():
    v = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]], dtype=np.float32)
    clusters, assign = leader_clusters(["a", "b", "c"], v, threshold=0.75)
    assert assign == [0, 0, 1] and clusters[0].members == ["a", "b"]
    clusters, assign = leader_clusters(["a", "b", "c"], v, threshold=0.9)
    assert assign == [0, 1, 2]


def test_condensation_drops_entailed_fact_and_rewrites_proofs():
    texts = ["A fish breathes with gills.", "A salmon is a kind of fish.", "A salmon breathes with gills.",
             "Mammals feed their babies milk.", "A mammal feeds its young with milk.", "A fish has fins."]
    support = [3, 1, 1, 1, 2, 1]
    vecs = BowEmbedder().encode(texts)
    ver = Verifier(from_uri(STANDIN))
    res = condense(texts, support, vecs, ver, neighbors=4)
    assert res.replaced[2] == [0, 1] or res.replaced[2] == [1, 0]  # specific fact <- general pair
    assert res.replaced[3] == [4]  # paraphrase dedup missed, merged into the more used one
    assert 0 not in res.replaced and 1 not in res.replaced and 5 not in res.replaced
    proofs = rewrite_proofs([(0, frozenset({2})), (0, frozenset({0, 1})), (1, frozenset({3, 5}))], res.replaced)
    assert proofs == [(0, frozenset({0, 1})), (1, frozenset({4, 5}))]


def test_condensation_never_drops_a_premise_it_relied_on():
    # each fact entails the other: exactly one survives
    texts = ["Mammals feed their babies milk.", "A mammal feeds its young with milk."]
    res = condense(texts, [1, 1], BowEmbedder().encode(texts), Verifier(from_uri(STANDIN)))
    assert list(res.replaced) == [0] and res.replaced[0] == [1]
