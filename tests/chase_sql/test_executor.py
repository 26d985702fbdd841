import hashlib
import sqlite3

import pytest

from toolkit.chase_sql.executor import Executor, UnsafeSQL, check_read_only, connect_read_only, execute_sql

WRITES = [
    "INSERT INTO authors VALUES (99, 'X', 'Y', 2000)",
    "UPDATE books SET copies = 0",
    "DELETE FROM loans",
    "DROP TABLE books",
    "ATTACH DATABASE 'evil.db' AS evil",
    "PRAGMA user_version = 7",
    "PRAGMA journal_mode = WAL",
    "CREATE TABLE t (a)",
    "REPLACE INTO authors VALUES (1, 'X', 'Y', 1)",
    "SELECT 1; DROP TABLE books",
    "VACUUM",
    "WITH x AS (SELECT 1) INSERT INTO authors SELECT 5, 'a', 'b', 1 FROM x",
]


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def db(tmp_path, library_db):
    p = tmp_path / "lib.sqlite"
    p.write_bytes(library_db.read_bytes())
    return p


@pytest.mark.parametrize("sql", WRITES)
def test_writes_refused_and_db_byte_identical(db, sql, tmp_path):
    before = digest(db)
    res = execute_sql(db, sql)
    assert res.error is not None and res.error.startswith("refused"), res.error
    assert digest(db) == before
    assert not (tmp_path / "evil.db").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lib.sqlite"]  # no journal/wal files either


@pytest.mark.parametrize("sql", WRITES[:9])
def test_connection_itself_refuses_writes(db, sql):
    """Even without the sqlglot check, the read-only URI + authorizer keep the file unchanged."""
    before = digest(db)
    conn = connect_read_only(db)
    with pytest.raises(sqlite3.Error):
        conn.execute(sql)
        conn.commit()
    conn.close()
    assert digest(db) == before


def test_check_read_only_accepts_queries():
    for sql in ["SELECT 1", "with a as (select 1 as x) select x from a", "SELECT 1 UNION SELECT 2;"]:
        check_read_only(sql)
    for sql in ["", "SELEC 1", "DELETE FROM t"]:
        with pytest.raises(UnsafeSQL):
            check_read_only(sql)


def test_timeout_row_cap_and_errors(db):
    slow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c"
    res = execute_sql(db, slow, timeout=0.2)
    assert res.timed_out and res.status() == "timeout" and res.seconds < 5
    capped = execute_sql(db, "SELECT * FROM loans", row_cap=5)
    assert len(capped.rows) == 5 and capped.truncated
    bad = execute_sql(db, "SELECT nope FROM books")
    assert bad.status() == "error" and "no such column" in bad.error
    ex = Executor()
    assert ex.run(db, "SELECT COUNT(*) FROM books").rows == [(16,)]
    assert ex.run(db, "SELECT COUNT(*) FROM books") is ex.run(db, "SELECT COUNT(*) FROM books")  # cached
    ex.close()


def test_a_deeply_nested_query_is_an_error_result_not_a_crash(db):
    """Sampled rows can nest function calls hundreds deep; the parser's recursion limit must not end the run."""
    sql = "SELECT " + "abs(" * 400 + "1" + ")" * 400
    result = execute_sql(db, sql)
    assert result.error is not None and "nested too deeply" in result.error
