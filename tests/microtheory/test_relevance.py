import pytest

from toolkit.microtheory.embed import BowEmbedder
from toolkit.microtheory.relevance import curve, match_facts, p_relevance
from toolkit.microtheory.theory import Theory


def _fact(fid, text, members=None, entailed_by=()):
    return {"fact_id": fid, "text": text, "members": members or [text], "entailed_by": list(entailed_by)}


@pytest.fixture
def theory():
    facts = {
        "f1": _fact("f1", "A fish breathes with gills.", ["A fish breathes with gills.", "Fish breathe with gills."]),
        "f2": _fact("f2", "A trout is a kind of fish."),
        "f3": _fact("f3", "A salmon breathes with gills.", entailed_by=["f1", "f4"]),
        "f4": _fact("f4", "A salmon is a kind of fish."),
    }
    chosen = [{"fact_id": "f1", "text": facts["f1"]["text"]}, {"fact_id": "f4", "text": facts["f4"]["text"]}]
    return Theory("t", "given", chosen, facts)


def _entry(qid, *proofs, verified=True):
    return {"question_id": qid, "proofs": [{"facts": list(p), "verified": verified} for p in proofs]}


def test_p_relevance_hand_computed(theory):
    entries = [
        _entry("q1", ["A cod is a kind of fish.", "Fish breathe with gills."]),  # 1 of 2 facts in M
        _entry("q2", ["A salmon breathes with gills."]),  # condensed fact, its premises are both in M
        _entry("q3", ["A trout is a kind of fish.", "A fish breathes with gills."], ["A fish has fins."]),
        _entry("q4", ["A fish breathes with gills."], verified=False),  # no verified proof: not counted
    ]
    texts = [t for e in entries for p in e["proofs"] if p["verified"] for t in p["facts"]]
    mapping = match_facts(texts, theory, BowEmbedder(), threshold=0.85)
    assert mapping["Fish breathe with gills."] == {"f1"}
    assert mapping["A salmon breathes with gills."] == {"f1", "f4"}
    assert mapping["A cod is a kind of fish."] == frozenset()
    chosen = {"f1", "f4"}
    full = p_relevance(entries, mapping, chosen, 1.0)
    assert (full["relevant"], full["proven"], full["p_relevance"]) == (1, 3, pytest.approx(1 / 3, abs=1e-4))
    assert p_relevance(entries, mapping, chosen, 0.5)["relevant"] == 3
    assert p_relevance(entries, mapping, chosen, 0.6)["relevant"] == 1
    assert p_relevance(entries, mapping, set(), 0.0)["relevant"] == 0  # no overlap is never relevant
    assert full["fractions"] == {"q1": 0.5, "q2": 1.0, "q3": 0.5}


def test_curve_grows_with_training_questions():
    facts = {f"f{i}": _fact(f"f{i}", f"Fact number {i}.") for i in range(4)}
    proofsets = [{"question_id": f"t{i}", "proofs": [[f"f{i}"]]} for i in range(4)]
    th = Theory("t", "ilp-full", [], facts, proofsets)
    entries = [_entry(f"e{i}", [f"Fact number {i}."]) for i in range(4)]
    mapping = match_facts([f"Fact number {i}." for i in range(4)], th, BowEmbedder())
    pts = curve(th, entries, mapping, p=1.0, sizes=[1, 2, 4], budget=4, strategy="ilp-full", seed=0)
    assert [pt["p_relevance"] for pt in pts] == [0.25, 0.5, 1.0]
    assert [pt["train_questions"] for pt in pts] == [1, 2, 4]
