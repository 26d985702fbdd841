from toolkit.core.llm import from_uri
from toolkit.microtheory.data import Question
from toolkit.microtheory.ground import Retriever, ground_question, summarize
from toolkit.microtheory.verify import Verifier

FILLER = ["Water boils at 100 degrees Celsius.", "Whales sing songs.", "Trout live in cold streams.",
          "A robin is a kind of bird.", "Birds have feathers."]
Q = Question("q", "Which of these animals breathes with gills?", ("whale", "trout"), answer=1)


def _run(corpus):
    llm = from_uri("py:toolkit.microtheory.standin:complete")
    return ground_question(Q, llm, Verifier(llm), Retriever(corpus + FILLER), k=5)


def test_grounded_only_when_every_leaf_is_retrieved_and_entailed():
    # the general fact is missing: the model believes the proof, but it is not grounded
    res = _run(["A trout is a kind of fish.", "A whale is a kind of mammal."])
    assert not res["grounded"] and res["predicted"] is None and not res["correct"]
    # the taxonomy link is missing: half a proof is not a proof
    res = _run(["Fish breathe with gills.", "A whale is a kind of mammal."])
    assert not res["grounded"]
    res = _run(["A trout is a kind of fish.", "Fish breathe with gills.", "A whale is a kind of mammal."])
    assert res["grounded"] and res["predicted"] == "B" and res["correct"]
    trout = res["options"][1]
    assert trout["leaves"] == ["A trout is a kind of fish.", "Fish breathe with gills."]
    assert not res["options"][0]["grounded"]  # "A whale is a kind of fish." has no support in the corpus


def test_direct_one_sentence_proof_and_summary():
    res = _run(["Trout breathe with gills."])
    assert res["options"][1]["leaves"] == ["Trout breathe with gills."]
    wrong = {"question_id": "x", "grounded": True, "correct": False}
    none = {"question_id": "y", "grounded": False, "correct": False}
    s = summarize([res, wrong, none])
    assert (s["grounded"], s["correct"], s["grounded_rate"], s["grounded_accuracy"]) == (2, 1, 0.6667, 0.3333)
    assert s["grounded_precision"] == 0.5
