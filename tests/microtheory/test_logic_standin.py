from toolkit.microtheory import logic, prompts, standin


def test_parse_shapes():
    assert logic.parse("Trout are a type of fish.") == logic.Parsed("isa", "trout", "fish")
    assert logic.parse("A nail is made of iron.").kind == "made"
    p = logic.parse("Fishes use gills to breathe.")
    assert p.kind == "prop" and p.subject == "fish" and p.predicate == {"gill", "breath"}
    assert logic.parse("Hello") is None


def test_entailment_chains_paraphrases_and_negation():
    prem = ["A copper wire is made of copper.", "Copper is a kind of metal.", "Metals conduct electricity."]
    assert logic.entails(prem, "A copper wire conducts electricity.")
    assert not logic.entails(prem[1:], "A copper wire conducts electricity.")  # missing link
    assert not logic.entails(["A whale is a kind of mammal.", "A fish breathes with gills."],
                             "A whale breathes with gills.")
    assert logic.entails(["Mammals feed their babies milk."], "A mammal feeds its young with milk.")
    assert not logic.entails(["Rubber does not conduct electricity."], "Rubber conducts electricity.")
    assert not logic.entails(["A metal conducts heat."], "A metal conducts electricity.")
    assert logic.entails(["A trout is a kind of fish.", "A fish is a kind of animal."], "A trout is a kind of animal.")


def test_standin_hypotheses_and_facts():
    h = standin.make_hypothesis("Which of these animals breathes with gills?", "trout")
    assert h == "A trout breathes with gills."
    assert standin.make_hypothesis("A bat is a kind of which of these?", "mammal") == "A bat is a kind of mammal."
    assert standin.make_hypothesis("Which of these produces its own light?", "the sun") == \
        "The sun produces its own light."
    facts = standin.make_facts(h, 0, 0.0)
    assert facts == ["A trout is a kind of fish.", "A fish breathes with gills."]
    assert logic.entails(facts, h)
    # a wrong option gets a misconception: a false membership claim that still "proves" it
    wrong = standin.make_facts("A whale breathes with gills.", 0, 0.0)
    assert wrong[0] == "A whale is a kind of fish."
    # sampling is deterministic and varies across sample indices
    samples = [tuple(standin.make_facts(h, i, 0.7)) for i in range(8)]
    assert samples == [tuple(standin.make_facts(h, i, 0.7)) for i in range(8)]
    assert len(set(samples)) > 1
    assert standin.make_facts("The sun is the closest star to Earth.", 0, 0.0) == []


def test_standin_complete_dispatches_on_task():
    msgs = prompts.hypothesis_messages("Which of these animals has six legs?", "ant")
    assert standin.complete(msgs, n=2) == ["An ant has six legs."] * 2
    msgs = prompts.entail_messages(["An ant is a kind of insect.", "Insects have six legs."], "An ant has six legs.")
    assert standin.complete(msgs) == ["yes"]
    msgs = prompts.entail_messages(["Insects have six legs."], "An ant has six legs.")
    assert standin.complete(msgs) == ["no"]
    assert prompts.parse_facts("1. A fish has fins\n- A fish has fins.\n\nnone") == ["A fish has fins."]
    assert prompts.parse_yes_no("Yes.") and not prompts.parse_yes_no("no")
