from toolkit.chase_sql.evaluation import bird_ex, evaluate_prediction, spider_ex, spider_rows_equal, summarize
from toolkit.chase_sql.executor import ExecResult, Executor


def R(*rows, error=None, timed_out=False):
    return ExecResult(rows=list(rows), error=error, timed_out=timed_out)


def test_duplicates():
    gold, pred = R((1,), (1,), (2,)), R((1,), (2,))
    assert bird_ex(pred, gold)  # sets
    assert not spider_ex(pred, gold, "SELECT a FROM t")  # multisets
    assert spider_ex(R((2,), (1,), (1,)), gold, "SELECT a FROM t")


def test_order_counts_only_with_order_by():
    gold, pred = R((1,), (2,), (3,)), R((3,), (2,), (1,))
    assert spider_ex(pred, gold, "SELECT a FROM t")
    assert not spider_ex(pred, gold, "SELECT a FROM t ORDER BY a")
    assert spider_ex(R((1,), (2,), (3,)), gold, "select a from t order  by a")
    assert bird_ex(pred, gold)  # BIRD never looks at order


def test_column_order():
    gold = R(("Oslo", 3), ("Lyon", 5))
    pred = R((3, "Oslo"), (5, "Lyon"))
    assert spider_ex(pred, gold, "SELECT city, n FROM t")
    assert not bird_ex(pred, gold)
    # permuting columns must keep rows together
    assert not spider_rows_equal([(3, "Lyon"), (5, "Oslo")], [("Oslo", 3), ("Lyon", 5)], False)
    # same values per column but different pairing
    assert not spider_rows_equal([(1, 2), (2, 1)], [(1, 1), (2, 2)], False)
    assert spider_rows_equal([(1, 1), (2, 2)], [(1, 1), (2, 2)], True)
    assert not spider_rows_equal([(1,)], [(1, 2)], False)


def test_nulls_floats_and_empty():
    assert bird_ex(R((None,), (1,)), R((1,), (None,)))
    assert spider_ex(R((None, "a")), R(("a", None)), "SELECT x, y FROM t")
    assert bird_ex(R((1.0,)), R((1,)))  # Python equality: 1.0 == 1
    assert not bird_ex(R((0.1 + 0.2,)), R((0.3,)))  # no tolerance, as in the official scripts
    assert not spider_ex(R((33.333333,)), R((100 / 3,)), "SELECT x FROM t")
    assert bird_ex(R(), R()) and spider_ex(R(), R(), "SELECT x FROM t")
    assert not spider_ex(R(), R((1,)), "SELECT x FROM t")


def test_errors_and_timeouts_are_wrong():
    gold = R((1,))
    assert not bird_ex(R(error="timeout after 1 s", timed_out=True), gold)
    assert not bird_ex(R(error="near 'SELEC': syntax error"), gold)
    assert not spider_ex(R(error="refused: only SELECT"), gold, "SELECT 1")


def test_evaluate_prediction_counts_timeouts_and_malformed_sql_as_wrong(library_db):
    ex = Executor(timeout=0.3)
    slow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c"
    gold = "SELECT COUNT(*) FROM members WHERE city = 'Hamburg'"
    rec = {"qid": "4", "db_id": "library", "difficulty": "simple", "sql": slow, "self_consistency": 1,
           "candidates": [{"sql": slow, "generator": "dc"}, {"sql": "SELEC COUNT(*) FRM members", "generator": "qp"},
                          {"sql": gold.replace("'Hamburg'", "\"Hamburg\""), "generator": "os"},
                          {"sql": "DROP TABLE members", "generator": "os"}]}
    row = evaluate_prediction(rec, gold, library_db, ex, "bird")
    assert row["candidates"] == [False, False, True, False]
    assert not row["correct"] and not row["self_consistency"] and row["oracle"] and row["mixed"]
    rows = [row, {**row, "correct": True, "self_consistency": True, "difficulty": "moderate", "mixed": False}]
    s = summarize(rows, "bird")
    assert s["ex"] == 50.0 and s["oracle"] == 100.0 and s["self_consistency"] == 50.0
    assert s["selector_accuracy_on_mixed"] == 0.0 and s["n_mixed"] == 1
    assert s["by_difficulty"] == {"moderate": {"n": 1, "ex": 100.0}, "simple": {"n": 1, "ex": 0.0}}
    assert s["generator_candidate_ex"] == {"dc": 0.0, "qp": 0.0, "os": 50.0}


def test_spider_layout_and_metric(tmp_path, library_db):
    import json
    import shutil

    from toolkit.chase_sql.data import load_dataset

    (tmp_path / "database" / "library").mkdir(parents=True)
    shutil.copy(library_db, tmp_path / "database" / "library" / "library.sqlite")
    gold = "SELECT city, COUNT(*) FROM members GROUP BY city ORDER BY COUNT(*) DESC, city"
    (tmp_path / "dev.json").write_text(json.dumps([{"db_id": "library", "question": "Members per city?",
                                                    "query": gold}]))
    ds = load_dataset(tmp_path)
    assert ds.kind == "spider" and ds.examples[0].gold == gold and ds.examples[0].qid == "0"
    swapped = "SELECT COUNT(*), city FROM members GROUP BY city ORDER BY COUNT(*) DESC, city"
    unordered = "SELECT city, COUNT(*) FROM members GROUP BY city ORDER BY city"
    rec = {"qid": "0", "sql": swapped, "self_consistency": 1,
           "candidates": [{"sql": swapped, "generator": "dc"}, {"sql": unordered, "generator": "qp"}]}
    row = evaluate_prediction(rec, gold, ds.examples[0].db_path, Executor(), "spider")
    assert row["candidates"] == [True, False] and row["correct"]  # columns permuted ok; order matters here
    bird = evaluate_prediction(rec, gold, ds.examples[0].db_path, Executor(), "bird")
    assert bird["candidates"] == [False, True]
