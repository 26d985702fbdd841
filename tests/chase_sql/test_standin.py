"""The stand-in plays the pipeline from the prompt alone: it never reads gold SQL, and its rules really work."""

import json
import shutil

from toolkit.chase_sql.evaluation import bird_ex
from toolkit.chase_sql.executor import execute_sql
from toolkit.chase_sql.generators import GenConfig
from toolkit.chase_sql.pipeline import PipelineConfig, Resources, answer
from toolkit.chase_sql.prompts import messages, qp_prompt, select_prompt
from toolkit.chase_sql.schema import load_schema
from toolkit.chase_sql.selection import LLMSelector
from toolkit.chase_sql.standin import complete
from toolkit.core.llm import from_uri

QIDS = (1, 2, 8, 22, 33, 38)  # joins, misspelt values, argmax over groups, a year, SUM, a percentage


def _run(data, cache, qids=QIDS):
    llm = from_uri("py:toolkit.chase_sql.standin:complete")
    res = Resources(PipelineConfig(gen=GenConfig(per_generator=2), cache_dir=cache))
    items = json.loads((data / "dev.json").read_text())
    out = []
    for qid in qids:
        item = items[qid]
        db = data / "dev_databases" / item["db_id"] / f"{item['db_id']}.sqlite"
        out.append(answer(llm, LLMSelector(llm), res, db_path=db, question=item["question"],
                          evidence=item["evidence"], seed=0, qid=str(qid), db_id=item["db_id"]))
    return out


def test_predictions_do_not_depend_on_gold_sql(demo_dir, tmp_path):
    """Same run on a copy whose gold SQL is all wrong (and on one without it): byte-identical predictions."""
    real = _run(demo_dir, tmp_path / "cache")
    items = json.loads((demo_dir / "dev.json").read_text())
    for variant, change in (("wrong", lambda i: {**i, "SQL": "SELECT 42"}),
                            ("none", lambda i: {k: v for k, v in i.items() if k != "SQL"})):
        fake = tmp_path / variant
        shutil.copytree(demo_dir, fake, ignore=shutil.ignore_patterns("*.chase-index"))
        (fake / "dev.json").write_text(json.dumps([change(i) for i in items]))
        other = _run(fake, tmp_path / "cache")
        assert [json.dumps(r, sort_keys=True) for r in other] == [json.dumps(r, sort_keys=True) for r in real]
    right = []
    for rec, qid in zip(real, QIDS, strict=True):
        db = demo_dir / "dev_databases" / rec["db_id"] / f"{rec['db_id']}.sqlite"
        right.append(bird_ex(execute_sql(db, rec["sql"]), execute_sql(db, items[qid]["SQL"])))
    assert sum(right) >= 5, right  # the rules answer these questions from the prompt alone


def test_generator_writes_sql_from_the_prompt_only(library_db):
    schema = load_schema(library_db).render()
    values = "authors.name: 'Fyodor Dostoevsky'\nmembers.city: 'Bogotá'"
    cases = {
        ("Which country is the author Fyodor Dostoyevski from?", ""):
            "SELECT country FROM authors WHERE name = 'Fyodor Dostoevsky'",
        ("How many members live in Hamburg?", ""): "SELECT COUNT(*) FROM members WHERE city = 'Hamburg'",
        ("What is the title of the oldest book in the collection?", "oldest book refers to MIN(year_published)"):
            "SELECT title FROM books ORDER BY year_published ASC LIMIT 1",
    }
    for (question, hint), want in cases.items():
        text = complete(qp_prompt(schema, question, hint, values))[0]
        assert want in text, text
    # a value that is neither shown nor retrieved is written as the question spells it
    text = complete(qp_prompt(schema, "How many members have city Reykjavik?", "", ""))[0]
    assert "SELECT COUNT(*) FROM members WHERE city = 'Reykjavik'" in text
    # without retrieval, a misspelt name stays unmatched: no made-up correct value
    assert "Dostoevsky" not in complete(qp_prompt(schema, "Which country is the author Fyodor Dostoyevski from?",
                                                  "", ""))[0]
    # a phrasing outside the rules gives no query, not a guess from elsewhere
    assert "SELECT" not in complete(qp_prompt(schema, "Tell me a story about the library.", "", values))[0]


def test_generators_differ_and_are_deterministic(library_db):
    schema = load_schema(library_db)
    import random

    question = "Which author born in the United States has written the most books?"
    hint = "most books refers to MAX(COUNT(book_id))"
    texts = [complete(qp_prompt(schema.render(random.Random(k)), question, hint, ""))[0] for k in range(12)]
    assert texts == [complete(qp_prompt(schema.render(random.Random(k)), question, hint, ""))[0] for k in range(12)]
    assert all("ORDER BY COUNT(books.book_id) DESC LIMIT 1" in t for t in texts)


def test_judge_prefers_the_candidate_that_uses_the_question(library_db):
    schema = load_schema(library_db).render()
    question = "How many copies of books by Chimamanda Adichie does the library own in total?"
    hint = "in total refers to SUM(copies)"
    good = ("SELECT SUM(books.copies) FROM books JOIN authors ON books.author_id = authors.author_id "
            "WHERE authors.name = 'Chimamanda Ngozi Adichie'", "columns (SUM(books.copies)): 8")
    bad = ("SELECT SUM(copies) FROM books", "columns (SUM(copies)): 42")
    for (a, ra), (b, rb), want in ((good, bad, "A"), (bad, good, "B")):
        assert complete(select_prompt(schema, question, hint, a, ra, b, rb))[0] == want
    empty = ("SELECT title FROM books WHERE genre = 'Sci-fi'", "no rows")
    rows = ("SELECT title FROM books WHERE genre = 'Science fiction'", "columns (title): 'Dune'")
    assert complete(select_prompt(schema, "List the Science fiction books.", "", *empty, *rows))[0] == "B"


def test_unknown_prompt_gets_a_refusal():
    assert complete(messages("Write a poem."))[0] == "I cannot help with that."
