from toolkit.core.llm import from_uri
from toolkit.microtheory.data import Question
from toolkit.microtheory.store import build_entry, minimal_proof, verified_proof_ids, verified_proofs
from toolkit.microtheory.verify import Verifier

STANDIN = "py:toolkit.microtheory.standin:complete"


def test_minimal_proof_drops_facts_the_entailment_does_not_need():
    ver = Verifier(from_uri(STANDIN))
    facts = ["A trout is a kind of fish.", "A fish has fins.", "A fish breathes with gills.",
             "Fish breathe with gills."]
    assert minimal_proof(facts, "A trout breathes with gills.", ver) == \
        ["A trout is a kind of fish.", "Fish breathe with gills."]


def test_store_entry_keeps_only_verified_proofs_with_provenance():
    llm = from_uri(STANDIN)
    q = Question("q9", "Which of these animals breathes with gills?", ("whale", "trout"), answer=1)
    entry = build_entry(q, llm, Verifier(llm), proofs=8, temperature=0.7)
    assert entry["hypothesis"] == "A trout breathes with gills." and entry["proven"]
    assert all(p["proof_id"].startswith("q9/p") for p in entry["proofs"])
    assert any(not p["verified"] for p in entry["proofs"])  # a sampled proof missing its taxonomy link
    assert len(verified_proofs(entry)) == len(verified_proof_ids(entry)) >= 2
    for p in entry["proofs"]:
        if "generated" in p:
            assert set(p["facts"]) < set(p["generated"])
    q2 = Question("q0", "Which of these is the closest star to Earth?", ("the sun", "Mars"), answer=0)
    assert not build_entry(q2, llm, Verifier(llm))["proven"]
