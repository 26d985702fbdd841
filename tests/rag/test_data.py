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


MUSIQUE_3HOP = {
    "id": "3hop1__9285_5188_23307", "question": "What was the 1900 population of the birthplace of Alpha's founder?",
    "answer": "7531", "answer_aliases": ["7,531"], "answerable": True,
    "paragraphs": [{"idx": 0, "title": "Alpha", "paragraph_text": "Alpha was founded by Beta in 1871.",
                    "is_supporting": True},
                   {"idx": 1, "title": "Noise", "paragraph_text": "Unrelated material.", "is_supporting": False},
                   {"idx": 2, "title": "Beta", "paragraph_text": "Beta was born in Gamma City.", "is_supporting": True},
                   {"idx": 3, "title": "Gamma City", "paragraph_text": "Gamma City had 7531 people in 1900.",
                    "is_supporting": True}],
    "question_decomposition": [
        {"id": 9285, "question": "Alpha >> founded by", "answer": "Beta", "paragraph_support_idx": 0},
        {"id": 5188, "question": "#1 >> place of birth", "answer": "Gamma City", "paragraph_support_idx": 2},
        {"id": 23307, "question": "What was the population of #2 in 1900?", "answer": "7531",
         "paragraph_support_idx": 3}]}


def test_musique_relation_steps_become_follow_up_questions(tmp_path):
    from toolkit.rag import prompts
    from toolkit.rag.data import follow_up
    from toolkit.rag.pipeline import gold_demo

    qs, _ = load_questions(_jsonl(tmp_path / "m.jsonl", [MUSIQUE_3HOP, *MUSIQUE]), "musique")
    assert [s["question"] for s in qs[0]["decomposition"]] == [
        "What is Alpha founded by?", "What is the place of birth of Beta?",
        "What was the population of Gamma City in 1900?"]
    assert qs[1]["decomposition"][0]["question"] == "What is the manufacturer of Xbox?"
    demo = gold_demo(qs[0])
    follow = [line for line in demo["chain"] if line.startswith(prompts.FOLLOW)]
    assert len(follow) == 3 and not any(">>" in line for line in demo["chain"] + demo["sub_questions"])
    assert follow[1] == f"{prompts.FOLLOW} What is the place of birth of Beta?"
    assert follow_up("Lake Tahoe >> located in the administrative territorial entity") == \
        "What is Lake Tahoe located in the administrative territorial entity?"
    assert follow_up("Xbox >> part of") == "What is Xbox part of?"
    assert follow_up("Who founded Microsoft?") == "Who founded Microsoft?"
