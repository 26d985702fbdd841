import random
import sqlite3

from toolkit.chase_sql.context import QuestionContext, build_context, filter_schema
from toolkit.chase_sql.generators import GenConfig, generate
from toolkit.chase_sql.parsing import extract_sql, parse_choice, parse_examples, parse_keywords
from toolkit.chase_sql.schema import load_schema
from toolkit.chase_sql.values import build_index


def test_descriptions_utf8_bom_and_cp1252(tmp_path):
    db = tmp_path / "shop" / "shop.sqlite"
    db.parent.mkdir()
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE cafe (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("CREATE TABLE cake (id INTEGER PRIMARY KEY, cafe_id INTEGER REFERENCES cafe(id), kind TEXT)")
    conn.executemany("INSERT INTO cafe VALUES (?, ?)", [(1, "Café Crème"), (2, "Bar")])
    conn.commit()
    conn.close()
    desc = db.parent / "database_description"
    desc.mkdir()
    header = "original_column_name,column_name,column_description,data_format,value_description\n"
    (desc / "cafe.csv").write_bytes((header + "name,cafe name,name of the café,text,\n").encode("cp1252"))
    (desc / "cake.csv").write_bytes((header + "kind,,sort of cake,text,\"e.g. tarte, éclair\"\n").encode("utf-8-sig"))
    schema = load_schema(db)
    cafe, cake = schema.table("cafe"), schema.table("cake")
    assert cafe.column("name").description == "name of the café"
    assert cake.column("kind").value_description == "e.g. tarte, éclair"
    assert cake.column("cafe_id").foreign_key == ("cafe", "id")
    text = schema.render()
    assert "FOREIGN KEY (cafe_id) REFERENCES cafe(id)" in text and "id INTEGER PRIMARY KEY" in text
    assert "examples: 'Café Crème', 'Bar'" in text
    shuffled = schema.render(random.Random(3))
    assert sorted(shuffled.splitlines()) == sorted(text.splitlines())


def test_filter_keeps_relevant_columns(library_db):
    schema = load_schema(library_db)
    sub = filter_schema(schema, "How many copies of books by Toni Morrison does the library own?", "", [])
    kept = {t.name: [c.name for c in t.columns] for t in sub.tables}
    assert "copies" in kept["books"] and "author_id" in kept["books"]
    assert "members" not in kept and "genre" not in kept["books"]


class Spy:
    """An LLM stand-in that records every prompt and answers by task."""

    def __init__(self):
        self.calls = []

    def complete(self, messages, n=1, temperature=0.0, max_tokens=256, stop=None):
        from toolkit.core.llm import Completion

        text = messages[-1]["content"]
        self.calls.append((text, temperature))
        if "## Task: keyword extraction" in text:
            return Completion(['["Dostoyevski", "country"]'])
        if "## Task: synthetic example generation" in text:
            tag = "full" if "(all tables)" in text else "filtered"
            return Completion([f'[{{"question": "{tag} q", "sql": "SELECT {len(self.calls)}"}}]'])
        return Completion(["```sql\nSELECT country FROM authors\n```"])


def test_generator_prompts_hold_schema_subset_values_and_examples(library_db, tmp_path):
    spy = Spy()
    ctx = build_context(spy, build_index(library_db, cache_dir=tmp_path), load_schema(library_db),
                        "Which country is the author Fyodor Dostoyevski from?", "")
    assert ctx.keywords == ["Dostoyevski", "country"]
    assert ctx.values[0].value == "Fyodor Dostoevsky"
    drafts = generate(spy, ctx, GenConfig(per_generator=2), seed=0)
    assert [(d.generator, d.sample) for d in drafts] == [("dc", 0), ("dc", 1), ("qp", 0), ("qp", 1), ("os", 0),
                                                          ("os", 1)]
    assert all(d.sql == "SELECT country FROM authors" for d in drafts)
    prompts = {tag: [t for t, _ in spy.calls if tag in t] for tag in ("divide-and-conquer", "query-plan",
                                                                        "from examples")}
    dc, qp, os_ = prompts["divide-and-conquer"], prompts["query-plan"], prompts["from examples"]
    # divide-and-conquer: the filtered schema (authors, not loans/members), the retrieved value, the worked example
    assert "CREATE TABLE authors" in dc[0] and "CREATE TABLE loans" not in dc[0] and "full_name" not in dc[0]
    assert "authors.name: 'Fyodor Dostoevsky'" in dc[0] and "Sub-question 1" in dc[0]
    # query plan: the full schema and plan steps rendered from SQLite's EXPLAIN QUERY PLAN
    assert "CREATE TABLE loans" in qp[0] and "scan every row of table employees" in qp[0]
    assert "compute scalar subquery" in qp[0]
    # online synthetic: examples generated for the full schema and for the filtered columns
    assert "full q" in os_[0] and "filtered q" in os_[0]
    # samples differ by schema order, with the generator temperature
    assert dc[0] != dc[1] and {t for _, t in spy.calls[-6:]} == {0.8}


def test_parsers():
    assert extract_sql("think...\n```sql\nSELECT 1\n```\nbetter:\n```sql\nSELECT a\nFROM t;\n```") == "SELECT a FROM t"
    assert extract_sql("Final SQL: SELECT x FROM y") == "SELECT x FROM y"
    assert extract_sql("The answer is SELECT 2") == "SELECT 2"
    assert parse_keywords('Keywords: ["a b", "c"]') == ["a b", "c"]
    assert parse_keywords("a, b\nc") == ["a", "b", "c"]
    assert parse_examples('x [{"question": "q", "sql": "SELECT 1;"}, {"bad": 1}]') == [{"question": "q",
                                                                                       "sql": "SELECT 1"}]
    assert parse_choice(" B.") == "B" and parse_choice("Answer: A") == "A" and parse_choice("none") is None


def test_context_without_index_still_filters(library_db):
    ctx = build_context(None, None, load_schema(library_db), "How many members live in Hamburg?", "")
    assert isinstance(ctx, QuestionContext) and ctx.values == [] and ctx.filtered.table("members") is not None
