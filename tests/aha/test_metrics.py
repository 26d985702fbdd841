import math

import pytest

from toolkit.aha.evaluate import Row, aggregate, score_rows
from toolkit.aha.metrics import (
    binary_score,
    cosine,
    cosine_scores,
    parse_judgement,
    rouge_l_score,
)
from toolkit.aha.prompt import make_answer, split_answer, verdict_word
from toolkit.core.llm import from_uri


def test_verdict_word_is_the_word_before_the_first_comma():
    assert verdict_word("Yes") == "yes"
    assert verdict_word("No, the cube slipped, then fell") == "no"
    assert verdict_word("  no.") == "no"
    assert verdict_word("Maybe yes, who knows") == "maybe"
    assert verdict_word("") == ""
    assert split_answer("No, the cube slipped, then fell") == ("No", "the cube slipped, then fell")
    assert split_answer("Yes") == ("Yes", "")
    assert split_answer("unclear") == (None, "")
    assert make_answer("No", " it fell ") == "No, it fell"


def test_binary_score():
    assert binary_score("Yes", "Yes, fine") == 1.0
    assert binary_score("no, x", "No, y") == 1.0
    assert binary_score("Yes", "No, y") == 0.0
    assert binary_score("garbage", "No, y") == 0.0


def test_rouge_l_follows_the_paper_rule_with_hand_computed_f1():
    assert rouge_l_score("Yes", "Yes") == 1.0
    assert rouge_l_score("Yes", "No, it fell") == 0.0
    assert rouge_l_score("No, it fell", "Yes") == 0.0
    # LCS of [the block slipped from the gripper] and [the block fell from the gripper] = 5 of 6 tokens each
    got = rouge_l_score("No, the block slipped from the gripper", "No, the block fell from the gripper")
    assert got == pytest.approx(5 / 6)
    # P = 2/2, R = 2/4 -> F1 = 2/3
    assert rouge_l_score("No, gripper open", "No, the gripper stayed open") == pytest.approx(2 / 3)


def test_cosine_against_hand_values():
    assert cosine([1, 0], [1, 1]) == pytest.approx(1 / math.sqrt(2))
    assert cosine([0, 0], [1, 1]) == 0.0
    table = {"a": [1.0, 0.0], "b": [0.0, 2.0], "c": [3.0, 0.0]}
    assert cosine_scores(["a", "a"], ["c", "b"], lambda ts: [table[t] for t in ts]) == pytest.approx([1.0, 0.0])


def test_fuzzy_judgement_parsing_and_py_judge():
    assert parse_judgement("Correct") == 1.0
    assert parse_judgement("this is partial") == 0.5
    assert parse_judgement("INCORRECT.") == 0.0
    assert parse_judgement("no idea") is None
    judge = from_uri("py:tests.aha.judges:judge")
    rows = [Row("1", "t", "m", "q", "No, a", "No, a"), Row("2", "t", "m", "q", "No, b", "No, a"),
            Row("3", "t", "m", "q", "Yes", "No, a")]
    assert [s["fuzzy"] for s in score_rows(rows, judge=judge)] == [1.0, 0.5, 0.0]


def test_aggregate_overall_per_task_and_mode():
    rows = [Row("1", "stack", "nominal", "q", "Yes", "Yes"),
            Row("2", "stack", "slip", "q", "No, the block slipped away", "No, the block slipped"),
            Row("3", "lift", "slip", "q", "Yes", "No, the block slipped"),
            Row("4", "lift", "nominal", "q", "No, x", "Yes")]
    embed = {"Yes": [1.0, 0.0], "No, x": [0.0, 1.0], "No, the block slipped away": [1.0, 1.0],
             "No, the block slipped": [1.0, 1.0]}
    result = aggregate(rows, score_rows(rows, embed=lambda ts: [embed[t] for t in ts]))
    # row 2 ROUGE-L: P = 3/4, R = 3/3 -> F1 = 6/7
    assert result["overall"]["n"] == 4
    assert result["overall"]["binary"] == pytest.approx(0.5)
    assert result["overall"]["rouge_l"] == pytest.approx((1 + 6 / 7) / 4)
    assert result["overall"]["cosine"] == pytest.approx((1 + 1 + 1 / math.sqrt(2) + 0) / 4)
    assert result["overall"]["fuzzy"] is None
    assert result["by_task"]["stack"]["binary"] == 1.0 and result["by_task"]["lift"]["binary"] == 0.0
    assert result["by_mode"]["slip"]["rouge_l"] == pytest.approx(3 / 7)
    assert result["by_mode"]["nominal"]["n"] == 2


def test_binary_interval_resamples_whole_scenes():
    # 10 scenes of 4 samples each: a scene is all right or all wrong, so the samples are not independent
    rows, scores = [], []
    for scene in range(10):
        for k in range(4):
            rows.append(Row(f"{scene}-{k}", "stack", "nominal", "q", "Yes", "Yes", scene=("stack", scene)))
            scores.append(float(scene < 7))
    by_scene = aggregate(rows, [{"binary": s, "binary_strict": s, "rouge_l": s, "cosine": None, "fuzzy": None}
                                for s in scores])["overall"]
    assert by_scene["scenes"] == 10 and by_scene["binary"] == pytest.approx(0.7)
    lo, hi = by_scene["binary_ci95"]
    assert lo < 0.7 < hi
    # the same 40 scores as 40 independent samples give a narrower interval
    loose = [Row(r.sample_id, r.task, r.mode, r.question, r.pred, r.ref) for r in rows]
    single = aggregate(loose, [{"binary": s, "binary_strict": s, "rouge_l": s, "cosine": None, "fuzzy": None}
                               for s in scores])["overall"]
    assert single["scenes"] == 40
    assert (hi - lo) > 1.5 * (single["binary_ci95"][1] - single["binary_ci95"][0])


def test_minilm_embedder_ranks_a_paraphrase_above_an_unrelated_answer():
    from toolkit.core.minilm import minilm_embedder

    embed = minilm_embedder()
    ref = "No, the red cube slipped out of the robot gripper while it was being moved"
    para, other = "No, the gripper lost the red cube while moving it", "Yes"
    close, far = cosine_scores([para, other], [ref, ref], embed)
    assert close > 0.6 > far
    assert cosine_scores([ref], [ref], embed)[0] == pytest.approx(1.0, abs=1e-5)


def test_strict_binary_is_the_official_exact_match_and_lenient_reads_the_first_word(tmp_path):
    import json
    import subprocess
    import sys

    from toolkit.aha.metrics import binary_strict_score

    # (prediction, reference, lenient, strict): the official check compares the whole text before the comma
    cases = [("Yes", "Yes", 1, 1), ("yes, the robot succeed at the sub-task.", "Yes", 1, 1),
             ("Yes.", "Yes", 1, 0), ("No the gripper slipped", "No, the block slipped", 1, 0),
             ("No, the gripper slipped", "No, the block slipped", 1, 1), (" NO , x", "No, y", 1, 1),
             ("Yes", "No, x", 0, 0), ("Maybe, x", "No, x", 0, 0)]
    for pred, ref, lenient, strict in cases:
        assert (binary_score(pred, ref), binary_strict_score(pred, ref)) == (lenient, strict), pred
    verdicts = tmp_path / "v.jsonl"
    verdicts.write_text("".join(json.dumps({"type": "aha.verdict", "schema": 1, "sample_id": str(i), "task": "t",
                                            "mode": "m", "raw": p, "reference": r}) + "\n"
                                for i, (p, r, _, _) in enumerate(cases)))
    out = subprocess.run([sys.executable, "-m", "cli", "aha", "eval", "--pred", str(verdicts), "--no-cosine",
                          "--json"], capture_output=True, text=True, check=True)
    overall = json.loads(out.stdout)["overall"]
    assert overall["binary"] == pytest.approx(6 / 8) and overall["binary_strict"] == pytest.approx(4 / 8)
    assert "strict" in out.stderr  # both columns in the table
