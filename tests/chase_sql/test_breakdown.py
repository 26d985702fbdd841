"""The breakdown's figures on hand-made records whose verdicts are known."""

from __future__ import annotations

import pytest

from toolkit.chase_sql.breakdown import breakdown, parse_pool
from toolkit.chase_sql.data import load_dataset
from toolkit.core.errors import InputError


def cand(gen: str, k: int, sql: str, draft: str | None = None) -> dict:
    return {"generator": gen, "sample": k, "sql": sql, "draft": draft or sql, "fixes": [{"x": 1}] if draft else []}


def test_generators_pools_fixer_and_selection(demo_dir):
    ds = load_dataset(demo_dir, "dev")
    e = ds.examples[0]
    wrong = "SELECT 12345"
    rec = {"qid": e.qid, "question": e.question, "sql": wrong, "self_consistency": 0, "candidates": [
        cand("dc", 0, wrong), cand("dc", 1, wrong), cand("qp", 0, e.gold, draft="SELECT nope FROM nothing"),
        cand("qp", 1, wrong), cand("os", 0, "SELECT broken("),
    ]}
    out = breakdown([rec], ds, {e.qid})
    assert out["n"] == 1 and out["pool"] == 5 and out["selection"] == "record"
    assert out["ex_selected"] == 0.0 and out["ex_self_consistency"] == 0.0 and out["oracle"] == 100.0
    assert out["n_mixed"] == 1 and out["selector_accuracy_on_mixed"] == 0.0
    assert out["generators"]["dc"] == {"candidate_ex": 0.0, "oracle": 0.0, "self_consistency": 0.0}
    assert out["generators"]["qp"]["oracle"] == 100.0 and out["generators"]["qp"]["candidate_ex"] == 50.0
    assert out["fixer"]["draft_candidate_ex"] == 0.0 and out["fixer"]["fixed_candidate_ex"] == 20.0
    assert out["fixer"]["oracle_drafts"] == 0.0 and out["fixer"]["candidates_sent_to_fixer"] == 1
    assert out["misspelt"]["n"] == 1
    # first sample of each generator only: qp's right answer stays, its wrong second sample goes
    small = breakdown([rec], ds, set(), pool="dc:1,qp:1,os:1")
    assert small["pool"] == 3 and small["selection"] == "self-consistency" and small["oracle"] == 100.0

    class PrefersGold:
        def choose(self, schema, question, evidence, sql_a, res_a, sql_b, res_b):
            return "A" if sql_a == e.gold else "B"

    picked = breakdown([rec], ds, set(), pool="dc:2,qp:2,os:1", selector=PrefersGold())
    assert picked["ex_selected"] == 100.0 and picked["ex_self_consistency"] == 0.0
    assert picked["selected_minus_sc"]["diff"] == 100.0


def test_bad_pool_spec_is_an_input_error():
    assert parse_pool("dc:7,qp:7") == {"dc": 7, "qp": 7}
    with pytest.raises(InputError, match="--pool dc"):
        parse_pool("dc")
