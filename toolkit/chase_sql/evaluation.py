"""Execution accuracy as BIRD and Spider define it, and the paper's pool-level ablations.

BIRD EX: the predicted and gold result rows are equal as sets; an error or timeout is wrong.
Spider EX: equal as multisets of rows, where the predicted columns may be permuted to match
the gold ones; row order counts only when the gold query has ORDER BY.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any

from toolkit.chase_sql.executor import ExecResult, Executor


def bird_ex(pred: ExecResult, gold: ExecResult) -> bool:
    if pred.error is not None or gold.error is not None:
        return False
    return set(pred.rows) == set(gold.rows)


def _column_perms(pred_rows: Sequence[tuple], gold_rows: Sequence[tuple], ncols: int):
    """Permutations p with pred column p[k] holding the values of gold column k (pruned by value sets)."""
    gold_sets = [{r[k] for r in gold_rows} for k in range(ncols)]
    pred_sets = [{r[k] for r in pred_rows} for k in range(ncols)]
    options = [[p for p in range(ncols) if pred_sets[p] == gold_sets[k]] for k in range(ncols)]
    if any(not o for o in options):
        return
    for perm in itertools.product(*options):
        if len(set(perm)) == ncols:
            yield perm


def spider_rows_equal(pred_rows: Sequence[tuple], gold_rows: Sequence[tuple], order_matters: bool) -> bool:
    if not pred_rows and not gold_rows:
        return True
    if len(pred_rows) != len(gold_rows):
        return False
    ncols = len(gold_rows[0])
    if len(pred_rows[0]) != ncols:
        return False
    for perm in _column_perms(pred_rows, gold_rows, ncols):
        permuted = [tuple(row[p] for p in perm) for row in pred_rows]
        if order_matters:
            if permuted == list(gold_rows):
                return True
        elif Counter(permuted) == Counter(gold_rows):
            return True
    return False


def spider_ex(pred: ExecResult, gold: ExecResult, gold_sql: str) -> bool:
    if pred.error is not None or gold.error is not None:
        return False
    return spider_rows_equal(pred.rows, gold.rows, "order by" in " ".join(gold_sql.lower().split()))


def is_correct(metric: str, pred: ExecResult, gold: ExecResult, gold_sql: str) -> bool:
    return bird_ex(pred, gold) if metric == "bird" else spider_ex(pred, gold, gold_sql)


def prediction_problem(record: dict[str, Any]) -> str | None:
    """What makes an sql.prediction record unusable for evaluation (field named), or None."""
    if not isinstance(record.get("sql"), str):
        return "field 'sql': expected a string"
    cands = record.get("candidates", [])
    if cands is not None and (not isinstance(cands, list)
                              or not all(isinstance(c, dict) and isinstance(c.get("sql"), str) for c in cands)):
        return "field 'candidates': expected a list of objects with an 'sql' string"
    sc = record.get("self_consistency", 0)
    if cands and (isinstance(sc, bool) or not isinstance(sc, int) or not 0 <= sc < len(cands)):
        return f"field 'self_consistency': expected a candidate index below {len(cands)}"
    return None


def evaluate_prediction(record: dict[str, Any], gold_sql: str, db_path, executor: Executor,
                        metric: str) -> dict[str, Any]:
    """Per-question verdicts: chosen, self-consistency, oracle, and every candidate."""
    gold = executor.run(db_path, gold_sql)
    cands = record.get("candidates") or []
    verdicts = [is_correct(metric, executor.run(db_path, c["sql"]), gold, gold_sql) for c in cands]
    chosen_ok = is_correct(metric, executor.run(db_path, record.get("sql") or ""), gold, gold_sql)
    sc = record.get("self_consistency", 0)
    return {
        "qid": record.get("qid"), "db_id": record.get("db_id"), "difficulty": record.get("difficulty", "unknown"),
        "correct": chosen_ok, "self_consistency": bool(verdicts[sc]) if verdicts else False,
        "oracle": any(verdicts), "mixed": any(verdicts) and not all(verdicts),
        "candidates": verdicts, "generators": [c.get("generator") for c in cands], "gold_error": gold.error,
    }


def summarize(rows: list[dict[str, Any]], metric: str) -> dict[str, Any]:
    def rate(items, key):
        return round(100.0 * sum(bool(r[key]) for r in items) / len(items), 2) if items else None

    out: dict[str, Any] = {"metric": metric, "n": len(rows), "ex": rate(rows, "correct"),
                           "oracle": rate(rows, "oracle"), "self_consistency": rate(rows, "self_consistency")}
    mixed = [r for r in rows if r["mixed"]]
    out["selector_accuracy_on_mixed"] = rate(mixed, "correct")
    out["n_mixed"] = len(mixed)
    by_diff = {}
    for level in sorted({r["difficulty"] for r in rows}):
        items = [r for r in rows if r["difficulty"] == level]
        by_diff[level] = {"n": len(items), "ex": rate(items, "correct")}
    out["by_difficulty"] = by_diff
    per_gen: dict[str, list[bool]] = {}
    for r in rows:
        for g, ok in zip(r["generators"], r["candidates"], strict=False):
            per_gen.setdefault(g, []).append(ok)
    out["generator_candidate_ex"] = {g: round(100.0 * sum(v) / len(v), 2) for g, v in per_gen.items() if v}
    return out
