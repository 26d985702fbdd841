import json

import pytest

from toolkit.core.errors import InputError
from toolkit.dsg.evaluate import bootstrap_ci, evaluate
from toolkit.dsg.score import correct, to_number


def _write(path, recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def _item(i, concept, answer, qtype="choice", choices=None, nodes=None):
    r = {"type": "dsg.item", "schema": 1, "id": i, "image": "x.png", "concept": concept, "question": "q",
         "answer": answer, "question_type": qtype}
    if choices:
        r["choices"] = choices
    if nodes:
        r["gold_nodes"] = nodes
    return r


def _ans(i, answer):
    return {"type": "dsg.answer", "schema": 1, "id": i, "answer": answer}


def test_scoring_rules():
    assert correct("Yes.", "yes", "choice", ["no", "yes"]) and not correct("no", "yes", "choice", ["no", "yes"])
    assert correct("the answer is yes", "yes", "choice", ["no", "yes"])
    assert not correct("yes or no", "yes", "choice", ["no", "yes"])  # two options named: not an answer
    assert correct("three", "3", "count") and correct("3 steps", "3", "count") and not correct("4", "3", "count")
    assert to_number("twenty one") == 21 and to_number("none") is None
    assert correct("R1 C2", "r1c2", "open")


def test_accuracies_cis_and_chance_equal_hand_computed(tmp_path):
    gold = [_item("a", "maze", "yes", choices=["no", "yes"]), _item("b", "maze", "no", choices=["no", "yes"]),
            _item("c", "maze", "3", "count"), _item("d", "maze", "5", "count"),
            _item("e", "stacks", "2", choices=["1", "2", "3", "4"])]
    pred = [_ans("a", "yes"), _ans("b", "yes"), _ans("c", "three"), _ans("d", "5"), _ans("e", "2")]
    res = evaluate(_write(tmp_path / "p.jsonl", pred), _write(tmp_path / "g.jsonl", gold))
    rows = {(r["concept"], r["question_type"]): r for r in res["rows"]}
    assert rows[("maze", "choice")]["accuracy"] == 0.5 and rows[("maze", "choice")]["chance"] == 0.5
    assert rows[("maze", "count")]["accuracy"] == 1.0 and rows[("maze", "count")]["ci95"] == [1.0, 1.0]
    assert rows[("maze", "count")]["chance"] == 0.5  # two distinct gold values
    assert rows[("stacks", "choice")]["chance"] == 0.25
    assert res["accuracy"] == 0.8 and res["by_concept"] == {"maze": 0.75, "stacks": 1.0}
    assert res["mean_concept_accuracy"] == 0.875
    # the interval of [1, 0]: resampled means are 0, 0.5 or 1 -> the 95 % interval spans [0, 1]
    assert rows[("maze", "choice")]["ci95"] == [0.0, 1.0]
    assert bootstrap_ci([1] * 7 + [0] * 3) == bootstrap_ci([1] * 7 + [0] * 3)
    assert res["chance"] == round((2 * 0.5 + 2 * 0.5 + 0.25) / 5, 4)  # weighted by the rows' items


def test_question_only_prior_answers_the_training_majority_among_the_options(tmp_path):
    """The prior answers each question with its most frequent training answer that is an option; on a skewed
    training split it beats chance, on a balanced one it scores chance."""
    def split(answers, choices=None, task="maze.path"):
        return [{**_item(f"{task}-{i}", "maze", a, "choice" if choices else "count", choices), "task": task}
                for i, a in enumerate(answers)]

    from toolkit.dsg.evaluate import prior_from

    test = split(["yes", "no", "no", "no"], ["no", "yes"]) + split(["3", "4", "4", "5"], task="maze.length")
    for i, r in enumerate(test):
        r["id"] = f"x{i}"
    gold = _write(tmp_path / "g.jsonl", test)
    pred = _write(tmp_path / "p.jsonl", [_ans(r["id"], "yes") for r in test])
    skewed = _write(tmp_path / "skew.jsonl", split(["no"] * 3 + ["yes"], ["no", "yes"])
                    + split(["4", "4", "3"], task="maze.length"))
    res = evaluate(pred, gold, prior=prior_from(skewed))
    assert res["prior"] == 0.625  # 'no' on 3 of 4 path questions, '4' on 2 of 4 lengths
    rows = {r["question_type"]: r["prior"] for r in res["rows"]}
    assert rows == {"choice": 0.75, "count": 0.5}
    balanced = _write(tmp_path / "bal.jsonl", split(["yes", "no"], ["no", "yes"]))
    assert evaluate(pred, gold, prior=prior_from(balanced))["rows"][0]["prior"] == 0.75  # tie -> first option


def test_first_wrong_node_attribution(tmp_path):
    nodes = {"size": "4", "start": "r1c1", "goal": "r2c2"}
    gold = [_item("a", "maze", "yes", choices=["no", "yes"], nodes=nodes)]
    pred = [{"type": "dsg.grounding", "id": "a", "node": "size", "answer": "4"},
            {"type": "dsg.grounding", "id": "a", "node": "start", "answer": "r1c1"},
            {"type": "dsg.grounding", "id": "a", "node": "goal", "answer": "r3c3"}, _ans("a", "no")]
    res = evaluate(_write(tmp_path / "p.jsonl", pred), _write(tmp_path / "g.jsonl", gold))
    assert res["first_wrong_node"] == {"maze/goal": 1} and res["with_wrong_node"] == res["wrong_answers"] == 1
    assert res["node_accuracy"] == {"maze/goal": 0.0, "maze/size": 1.0, "maze/start": 1.0}


def test_id_mismatch_and_gold_without_answer(tmp_path):
    gold = _write(tmp_path / "g.jsonl", [_item("a", "maze", "yes")])
    with pytest.raises(InputError, match="1 of 2 predicted ids are not in"):
        evaluate(_write(tmp_path / "p.jsonl", [_ans("a", "yes"), _ans("zz", "no")]), gold)
    bad = _write(tmp_path / "g2.jsonl", [_item("a", "maze", "")])
    with pytest.raises(InputError, match="gold item without an answer"):
        evaluate(_write(tmp_path / "p2.jsonl", [_ans("a", "yes")]), bad)


def test_import_vad_reads_two_concepts(tmp_path):
    from toolkit.dsg.vad import import_vad

    for cat, concept, answer in (("strategic", "maze", "(b)"), ("domestic", "helping", "yes")):
        d = tmp_path / "VAD" / cat / concept
        d.mkdir(parents=True)
        (d / "1.png").write_bytes(b"")  # present (import checks that the file exists, run reads it)
        (d / "vqa.json").write_text(json.dumps({"questions": [{
            "image_filename": "1.png", "question_type": "counting",
            "question_multiple_choice": "How many exits? (a) one (b) two (c) three",
            "answer_multiple_choice": answer}]}))
    recs = list(import_vad(tmp_path / "VAD"))
    assert [r["concept"] for r in recs] == ["helping", "maze"]
    maze = recs[1]
    assert maze["choices"] == ["one", "two", "three"] and maze["answer"] == "two"
    assert maze["vad_question_type"] == "counting" and maze["image"].endswith("strategic/maze/1.png")
    with pytest.raises(InputError, match="no <category>/<concept>/vqa.json"):
        list(import_vad(tmp_path))
