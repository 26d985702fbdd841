"""Loaders on two-record fixtures in the real layouts, and their bad-input errors."""

from __future__ import annotations

import json

import pytest

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines
from toolkit.rag.data import load_corpus, load_questions

HOTPOT = [
    {"_id": "5a8b", "question": "Which magazine was started first, Arthur's Magazine or First for Women?",
     "answer": "Arthur's Magazine", "type": "comparison", "level": "medium",
     "supporting_facts": [["Arthur's Magazine", 0], ["First for Women", 0]],
     "context": [["Arthur's Magazine", ["Arthur's Magazine (1844-1846) was a periodical.", " It was edited."]],
                 ["First for Women", ["First for Women is a woman's magazine.", " It started in 1989."]],
                 ["Decoy", ["An unrelated paragraph."]]]},
    {"_id": "5a8c", "question": "Who edited Arthur's Magazine?", "answer": "T. S. Arthur", "type": "bridge",
     "level": "easy", "supporting_facts": [["Arthur's Magazine", 1]],
     "context": [["Arthur's Magazine", ["Arthur's Magazine (1844-1846) was a periodical.", " It was edited."]]]},
]
WIKI2 = [{**HOTPOT[0], "_id": "w1", "evidences": [["Arthur's Magazine", "inception", "1844"]]},
         {**HOTPOT[1], "_id": "w2", "evidences": []}]
MUSIQUE = [
    {"id": "2hop__1", "question": "Who founded the company that makes the Xbox?", "answer": "Bill Gates",
     "answer_aliases": ["William Henry Gates III"], "answerable": True,
     "paragraphs": [{"idx": 0, "title": "Xbox", "paragraph_text": "The Xbox is made by Microsoft.",
                     "is_supporting": True},
                    {"idx": 1, "title": "Microsoft", "paragraph_text": "Microsoft was founded by Bill Gates.",
                     "is_supporting": True},
                    {"idx": 2, "title": "Sony", "paragraph_text": "Sony makes the PlayStation.",
                     "is_supporting": False}],
     "question_decomposition": [
         {"id": 1, "question": "Xbox >> manufacturer", "answer": "Microsoft", "paragraph_support_idx": 0},
         {"id": 2, "question": "Who founded #1?", "answer": "Bill Gates", "paragraph_support_idx": 1}]},
    {"id": "2hop__2", "question": "Where is the maker of the PlayStation based?", "answer": "Tokyo",
     "answer_aliases": [], "answerable": True,
     "paragraphs": [{"idx": 0, "title": "Sony", "paragraph_text": "Sony makes the PlayStation.",
                     "is_supporting": True}],
     "question_decomposition": [
         {"id": 1, "question": "PlayStation >> manufacturer", "answer": "Sony", "paragraph_support_idx": 0},
         {"id": 2, "question": "Where is #1 based?", "answer": "Tokyo", "paragraph_support_idx": None}]},
]


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_hotpotqa_and_2wiki(tmp_path):
    for fmt, rows in (("hotpotqa", HOTPOT), ("2wiki", WIKI2)):
        p = tmp_path / f"{fmt}.json"
        p.write_text(json.dumps(rows))  # the official files are JSON arrays
        qs, docs = load_questions(p, fmt)
        assert [q["answers"] for q in qs] == [["Arthur's Magazine"], ["T. S. Arthur"]]
        assert len(docs) == 3  # the repeated paragraph is kept once
        by_id = {d["id"]: d for d in docs}
        assert [by_id[g]["title"] for g in qs[0]["gold_docs"]] == ["Arthur's Magazine", "First for Women"]
        assert qs[0]["hops"] == 2 and qs[1]["gold_docs"] == [qs[0]["gold_docs"][0]]
        assert by_id[qs[1]["gold_docs"][0]]["text"] == "Arthur's Magazine (1844-1846) was a periodical. It was edited."


def test_musique_substitutes_references(tmp_path):
    qs, docs = load_questions(_jsonl(tmp_path / "m.jsonl", MUSIQUE), "musique")
    assert qs[0]["decomposition"][1]["question"] == "Who founded Microsoft?"
    assert qs[1]["decomposition"][1]["question"] == "Where is Sony based?"
    assert qs[0]["answers"] == ["Bill Gates", "William Henry Gates III"] and qs[0]["hops"] == 2
    assert len(docs) == 3 and len(qs[0]["gold_docs"]) == 2
    assert qs[1]["decomposition"][1]["doc"] is None


def test_bamboogle_csv_and_dpr_tsv(tmp_path):
    (tmp_path / "b.csv").write_text('Question,Answer\n"Who was president when the Xbox came out?",Bill Clinton\n'
                                    '"What is the capital of the country where Sony is based?",Tokyo\n')
    qs, docs = load_questions(tmp_path / "b.csv", "bamboogle")
    assert [q["answers"][0] for q in qs] == ["Bill Clinton", "Tokyo"] and docs == []
    (tmp_path / "c.tsv").write_text("id\ttext\ttitle\n1\tAaron is a prophet.\tAaron\n2\tSony makes things.\tSony\n")
    assert load_corpus(tmp_path / "c.tsv") == [{"id": "1", "title": "Aaron", "text": "Aaron is a prophet."},
                                                {"id": "2", "title": "Sony", "text": "Sony makes things."}]


def test_bad_inputs_name_file_line_field(tmp_path):
    bad = dict(MUSIQUE[1])
    del bad["paragraphs"]
    p = _jsonl(tmp_path / "q.jsonl", [MUSIQUE[0], MUSIQUE[0] | {"id": "x"}, bad])
    with pytest.raises(InputError, match=r"q.jsonl:3: field 'paragraphs' missing \(format musique\)"):
        load_questions(p, "musique")
    counted = BadLines()
    qs, _ = load_questions(p, "musique", skip_bad=True, bad=counted)
    assert len(qs) == 2 and counted.count == 1
    dup = _jsonl(tmp_path / "c.jsonl", [{"id": "a", "title": "t", "text": "x"}, {"id": "a", "title": "t", "text": "y"}])
    with pytest.raises(InputError, match="c.jsonl:2: field 'id' duplicates"):
        load_corpus(dup)
    empty = _jsonl(tmp_path / "e.jsonl", [{"id": "a", "title": "t", "text": "  "}])
    with pytest.raises(InputError, match="e.jsonl:1: field 'text' is empty"):
        load_corpus(empty)
    with pytest.raises(InputError, match="field 'Answer' missing"):
        load_questions(_jsonl(tmp_path / "b.jsonl", [{"Question": "q?"}]), "bamboogle")
