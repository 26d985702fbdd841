"""LongBench inputs: metric functions on hand-computed examples, field errors, and `eval --data` end to end."""

import json

import pytest

from toolkit.core.errors import InputError
from toolkit.kvcompress.longbench import (
    classification,
    code_sim,
    count_score,
    load_longbench,
    metric_for,
    qa_f1,
    retrieval_score,
    rouge_l,
    score,
    truncate_middle,
)


def test_qa_f1_normalizes_and_counts_overlap():
    # "The Eiffel Tower!" -> "eiffel tower"; "eiffel tower in paris" -> P = 2/4, R = 2/2, F1 = 2/3
    assert qa_f1("eiffel tower in Paris", "The Eiffel Tower!") == pytest.approx(2 / 3)
    assert qa_f1("nothing alike", "paris") == 0.0
    assert score("hotpotqa", "paris", ["London", "Paris"]) == 1.0  # best over the gold answers


def test_rouge_l_is_the_lcs_f1():
    # LCS("a b c d", "a c d e") = "a c d" (3): P = 3/4, R = 3/4
    assert rouge_l("a b c d", "a c d e") == pytest.approx(0.75)
    assert rouge_l("", "a") == 0.0


def test_classification_counts_found_classes_and_ignores_parts_of_the_gold_name():
    classes = ["Location", "Abbreviation", "Description", "Entity"]
    assert classification("Type: Location", "Location", classes) == 1.0
    assert classification("Location or Entity", "Location", classes) == 0.5
    assert classification("Entity", "Location", classes) == 0.0
    assert classification("city name", "city name", ["city", "city name"]) == 1.0  # "city" is part of the gold
    assert score("trec", "Location\nEntity", ["Location"], classes) == 1.0  # few-shot sets: first line only


def test_code_sim_scores_the_first_code_line():
    assert code_sim("# comment\nreturn x + 1\n", "return x + 1") == 1.0
    assert code_sim("abcd", "abce") == pytest.approx(0.75)  # difflib ratio 2*3/8


def test_count_and_retrieval_share_of_right_numbers():
    assert count_score("there are 3 or 4 passages", "3") == 0.5
    assert retrieval_score("Paragraph 7", "Paragraph 7") == 1.0
    assert retrieval_score("Paragraph 2, maybe 7", "Paragraph 7") == 0.5
    assert metric_for("hotpotqa_e") == "qa_f1" and metric_for("gov_report") == "rouge"


def test_truncation_keeps_both_ends():
    assert truncate_middle(list(range(10)), 4) == [0, 1, 8, 9]
    assert truncate_middle([1, 2], None) == [1, 2]


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


GOOD = {"input": "question : code of k1 k2 is", "context": "f1 f2 the code of k1 k2 is v1 v2 v3 . f3 f4",
        "answers": ["v1 v2 v3"], "length": 15, "dataset": "hotpotqa"}


def test_bad_records_name_the_line_and_field(tmp_path):
    bad = {k: v for k, v in GOOD.items() if k != "answers"}
    with pytest.raises(InputError, match=r"lb.jsonl:2: missing field 'answers'"):
        load_longbench(_write(tmp_path / "lb.jsonl", [GOOD, bad]))
    with pytest.raises(InputError, match=r"lb.jsonl:1: field 'dataset': dataset 'mystery'"):
        load_longbench(_write(tmp_path / "lb.jsonl", [{**GOOD, "dataset": "mystery"}]))
    with pytest.raises(InputError, match=r"lb.jsonl:1: field 'length': expected a number"):
        load_longbench(_write(tmp_path / "lb.jsonl", [{**GOOD, "length": "long"}]))
    assert len(load_longbench(_write(tmp_path / "lb.jsonl", [{**GOOD, "dataset": "mystery"}]), metric="qa_f1")) == 1


def test_eval_data_scores_a_longbench_file_and_reports_bad_lines(reason, task_model_dir, tmp_path):
    data = _write(tmp_path / "lb.jsonl", [GOOD, {**GOOD, "dataset": "trec", "all_classes": ["v1", "v9"],
                                                 "answers": ["v1"]}])
    proc = reason("--seed", "0", "kvcompress", "eval", "--model", str(task_model_dir), "--data", str(data),
                  "--methods", "full,quest", "--budgets", "12", "--max-new-tokens", "3", "--page-size", "2",
                  "--dense-layers", "0")  # the task model has 2 layers: the reference default reads both densely
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["method"] for r in rows] == ["full", "quest"]
    assert set(rows[0]["by_task"]) == {"hotpotqa", "trec"} and rows[0]["examples"] == 2
    assert rows[0]["attended_fraction"] == 1.0 and rows[1]["attended_fraction"] < 1.0
    assert rows[1]["holds_full_context"] and rows[1]["page_meta_bytes_mean"] > 0
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(GOOD) + "\n" + json.dumps({"input": "q"}) + "\n")
    proc = reason("kvcompress", "eval", "--model", str(task_model_dir), "--data", str(broken), "--methods", "full")
    assert proc.returncode == 2 and "broken.jsonl:2: missing field" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
