import json

import pytest

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines
from toolkit.microtheory.data import load_corpus, load_questions


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_answers_as_letter_index_or_text(tmp_path):
    p = _write(tmp_path / "qa.jsonl", [
        {"id": "a", "question": "Q?", "options": ["x", "y"], "answer": "B"},
        {"id": "b", "question": "Q?", "options": ["x", "y"], "answer": 0},
        {"id": "c", "question": "Q?", "options": ["x", "y"], "answer": "y", "split": "test"},
    ])
    qs = load_questions(p)
    assert [q.answer for q in qs] == [1, 0, 1]
    assert [q.id for q in load_questions(p, split="test")] == ["c"]


def test_question_without_answer_is_a_clear_error(tmp_path):
    p = _write(tmp_path / "qa.jsonl", [{"id": "a", "question": "Q?", "options": ["x", "y"], "answer": "A"},
                                       {"id": "b", "question": "Q?", "options": ["x", "y"]}])
    with pytest.raises(InputError, match=r"qa.jsonl:2: missing field 'answer'"):
        load_questions(p)
    bad = BadLines()
    assert len(load_questions(p, skip_bad=True, bad=bad)) == 1 and bad.count == 1
    p2 = _write(tmp_path / "q2.jsonl", [{"question": "Q?", "options": ["x", "y"], "answer": "D"}])
    with pytest.raises(InputError, match="neither an option letter"):
        load_questions(p2)
    p3 = _write(tmp_path / "q3.jsonl", [{"question": "Q?", "options": "x", "answer": "A"}])
    with pytest.raises(InputError, match="field 'options'"):
        load_questions(p3)


def test_corpus_validation(tmp_path):
    p = _write(tmp_path / "c.jsonl", [{"text": "A fish has fins."}, {"id": "z", "text": "Sun."}])
    assert [d["id"] for d in load_corpus(p)] == ["d1", "z"]
    with pytest.raises(InputError, match="missing field 'text'"):
        load_corpus(_write(tmp_path / "bad.jsonl", [{"body": "x"}]))
