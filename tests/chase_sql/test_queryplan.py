"""Query-plan steps name real tables, and speak of a LIMIT only when the query has one."""

from __future__ import annotations

import re
import sqlite3

import pytest

from toolkit.chase_sql.queryplan import render_plan


@pytest.fixture(scope="module")
def conn():
    c = sqlite3.connect(":memory:")
    c.executescript("""
        CREATE TABLE books (book_id INTEGER PRIMARY KEY, title TEXT, year INTEGER, author_id INTEGER);
        CREATE TABLE authors (author_id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE loans (loan_id INTEGER PRIMARY KEY, book_id INTEGER, day TEXT);""")
    return c


def test_aliases_are_named_by_their_tables(conn):
    plan = render_plan(conn, "SELECT T1.title FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id "
                             "WHERE T2.name = 'Ann'")
    assert "table books" in plan and "table authors" in plan, plan
    assert "T1" not in plan and "T2" not in plan, plan
    bare = render_plan(conn, "SELECT b.title FROM books b WHERE b.book_id IN (SELECT l.book_id FROM loans l)")
    assert "table books" in bare and "table loans" in bare, bare
    assert not re.search(r"table [bl]\b", bare), bare


def test_limit_step_only_for_a_query_with_limit(conn):
    scalar = "SELECT title FROM books WHERE year > (SELECT AVG(year) FROM books) ORDER BY year DESC"
    exists = "SELECT name FROM authors AS a WHERE EXISTS (SELECT 1 FROM books AS b WHERE b.author_id = a.author_id)"
    for sql in (scalar, exists, "SELECT COUNT(*) FROM loans"):
        assert "LIMIT" not in render_plan(conn, sql), sql
    for sql in ("SELECT title FROM books ORDER BY year DESC LIMIT 3", "SELECT title FROM books LIMIT 1"):
        assert "stop once the LIMIT is reached" in render_plan(conn, sql), sql


def test_prompt_examples_carry_no_alias_and_no_phantom_limit():
    from toolkit.chase_sql.prompts import QP_EXAMPLES, query_plan_examples

    text = query_plan_examples()
    assert "table T1" not in text and "table T2" not in text
    assert ("LIMIT is reached" in text) == any("LIMIT" in sql for _, _, sql in QP_EXAMPLES)
