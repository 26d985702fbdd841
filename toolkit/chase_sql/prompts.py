"""Prompts of the pipeline: keyword extraction, the three generators, the fixer and the selector.

Every prompt opens with a `## Task:` line naming its stage, so recordings are easy to read.
The query-plan examples are rendered live from SQLite's EXPLAIN QUERY PLAN on a small
in-memory example database, so their steps are what SQLite really does.
"""

from __future__ import annotations

import functools
import sqlite3

SYSTEM = "You are an expert SQLite data analyst. You answer with precise, executable SQLite queries."

TASK_KEYWORDS = "## Task: keyword extraction"
TASK_DC = "## Task: divide-and-conquer SQL generation"
TASK_QP = "## Task: query-plan SQL generation"
TASK_SYNTH = "## Task: synthetic example generation"
TASK_OS = "## Task: SQL generation from examples"
TASK_FIX = "## Task: SQL query fixing"
TASK_SELECT = "## Task: SQL candidate selection"

EXAMPLE_SCHEMA = """CREATE TABLE departments (
  dept_id INTEGER PRIMARY KEY,
  dept_name TEXT,
  city TEXT -- examples: 'Oslo', 'Lyon'
);
CREATE TABLE employees (
  emp_id INTEGER PRIMARY KEY,
  name TEXT,
  dept_id INTEGER,
  salary REAL,
  hire_year INTEGER,
  FOREIGN KEY (dept_id) REFERENCES departments(dept_id)
);"""

KEYWORD_SHOTS = [
    ("Which employees hired after 2015 work in the Oslo office?", "hired after refers to hire_year > 2015",
     '["employees", "hired", "2015", "Oslo", "office", "hire_year"]'),
    ("What is the average salary of the 'Research & Development' department?", "",
     '["average salary", "Research & Development", "department"]'),
]

DC_EXAMPLE = """Question: Which department in Oslo has the highest average salary?
Hint: highest average salary refers to MAX(AVG(salary))

Main question: the department (in Oslo) whose employees have the highest average salary.
Sub-question 1: departments located in Oslo.
  Pseudo SQL: SELECT dept_id FROM departments WHERE city = 'Oslo'
Sub-question 2: average salary per department.
  Pseudo SQL: SELECT dept_id, AVG(salary) FROM employees GROUP BY dept_id
Assembling: join the two parts on dept_id, order by the average descending and keep the first.
  SELECT T1.dept_name FROM departments AS T1 JOIN employees AS T2 ON T1.dept_id = T2.dept_id
  WHERE T1.city = 'Oslo' GROUP BY T1.dept_id ORDER BY AVG(T2.salary) DESC LIMIT 1
Simplification: the query has no redundant joins or subqueries left.
Final SQL:
```sql
SELECT T1.dept_name FROM departments AS T1 JOIN employees AS T2 ON T1.dept_id = T2.dept_id
WHERE T1.city = 'Oslo' GROUP BY T1.dept_id ORDER BY AVG(T2.salary) DESC LIMIT 1
```"""

QP_EXAMPLES = [
    ("How many employees were hired in 2019 in the Lyon department?", "",
     "SELECT COUNT(*) FROM employees AS T1 JOIN departments AS T2 ON T1.dept_id = T2.dept_id "
     "WHERE T2.city = 'Lyon' AND T1.hire_year = 2019"),
    ("List the names of employees who earn more than the average salary, highest first.", "",
     "SELECT name FROM employees WHERE salary > (SELECT AVG(salary) FROM employees) ORDER BY salary DESC"),
]

SQL_FEATURES = ["simple filters with WHERE", "joins across tables on their keys", "aggregation with GROUP BY",
                "ORDER BY with LIMIT", "nested subqueries", "COUNT(DISTINCT ...)", "CASE WHEN ratios"]


@functools.lru_cache(maxsize=1)
def _example_conn() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    conn.executescript(EXAMPLE_SCHEMA)
    return conn


@functools.lru_cache(maxsize=1)
def query_plan_examples() -> str:
    from toolkit.chase_sql.queryplan import render_plan

    blocks = []
    for question, hint, sql in QP_EXAMPLES:
        plan = render_plan(_example_conn(), sql)
        blocks.append(f"Question: {question}\nHint: {hint or 'none'}\n"
                      f"Query plan, as the database engine would run it:\n{plan}\nFinal SQL:\n```sql\n{sql}\n```")
    return "\n\n".join(blocks)


def _context(schema: str, question: str, evidence: str, values: str) -> str:
    parts = [f"Database schema:\n{schema}"]
    if values:
        parts.append(f"Relevant values found in the database (table.column: values):\n{values}")
    parts.append(f"Question: {question}\nHint: {evidence or 'none'}")
    return "\n\n".join(parts)


def messages(user: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def keywords_prompt(question: str, evidence: str) -> list[dict]:
    shots = "\n\n".join(f"Question: {q}\nHint: {h or 'none'}\nKeywords: {k}" for q, h, k in KEYWORD_SHOTS)
    return messages(
        f"{TASK_KEYWORDS}\nExtract the keywords, key phrases and literal values (names, places, titles, numbers) "
        f"from the question and hint that may appear in the database. Answer with a Python list of strings only.\n\n"
        f"{shots}\n\nQuestion: {question}\nHint: {evidence or 'none'}\nKeywords:")


def dc_prompt(schema: str, question: str, evidence: str, values: str) -> list[dict]:
    return messages(
        f"{TASK_DC}\nDecompose the question into sub-questions, write pseudo SQL for each, assemble them into one "
        f"query, then simplify it (remove redundant joins, subqueries and columns). Select only the columns the "
        f"question asks for. End with the final SQLite query in a ```sql block.\n\nExample (another database):\n"
        f"{EXAMPLE_SCHEMA}\n\n{DC_EXAMPLE}\n\nNow the real task.\n\n{_context(schema, question, evidence, values)}")


def qp_prompt(schema: str, question: str, evidence: str, values: str) -> list[dict]:
    return messages(
        f"{TASK_QP}\nReason like the database engine: write the steps of the query plan that answers the question "
        f"(which tables to scan or search, how to join, filter, group, sort and limit), then write the SQLite query "
        f"in a ```sql block.\n\nExamples (another database):\n{EXAMPLE_SCHEMA}\n\n{query_plan_examples()}\n\n"
        f"Now the real task.\n\n{_context(schema, question, evidence, values)}")


def synth_prompt(schema: str, k: int, features: list[str], scope: str) -> list[dict]:
    feats = "; ".join(features)
    return messages(
        f"{TASK_SYNTH}\nWrite {k} diverse example questions about this database ({scope}) with their correct SQLite "
        f"queries. Use these SQL features across the examples: {feats}. Use only tables and columns of the schema. "
        f"Answer with a JSON list of objects with keys \"question\" and \"sql\".\n\nDatabase schema:\n{schema}")


def os_prompt(schema: str, question: str, evidence: str, values: str, examples: list[dict]) -> list[dict]:
    shots = "\n\n".join(f"Question: {e['question']}\nSQL: {e['sql']}" for e in examples)
    return messages(
        f"{TASK_OS}\nHere are example questions and SQL queries for this database:\n\n{shots}\n\n"
        f"Write the SQLite query that answers the question below, in a ```sql block.\n\n"
        f"{_context(schema, question, evidence, values)}")


def fix_prompt(schema: str, question: str, evidence: str, values: str, sql: str, feedback: str) -> list[dict]:
    return messages(
        f"{TASK_FIX}\nThe query below was written for the question but failed when executed. Find the cause "
        f"(wrong table or column names, misspelled values, wrong joins or filters, syntax) and write a corrected "
        f"SQLite query in a ```sql block.\n\n{_context(schema, question, evidence, values)}\n\n"
        f"Query:\n```sql\n{sql}\n```\nExecution feedback: {feedback}")


def select_prompt(schema: str, question: str, evidence: str, sql_a: str, result_a: str, sql_b: str,
                  result_b: str) -> list[dict]:
    return messages(
        f"{TASK_SELECT}\nTwo candidate queries answer the question but give different results. Decide which one "
        f"answers the question correctly. Answer with exactly one letter: A or B.\n\nDatabase schema:\n{schema}\n\n"
        f"Question: {question}\nHint: {evidence or 'none'}\n\nCandidate A:\n```sql\n{sql_a}\n```\n"
        f"Result A: {result_a}\n\nCandidate B:\n```sql\n{sql_b}\n```\nResult B: {result_b}\n\nAnswer:")
