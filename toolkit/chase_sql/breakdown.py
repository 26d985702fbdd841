"""The paper's table from one run's records: each generator alone, the fixer's gain, selector against
self-consistency (paired bootstrap) against the oracle, and the misspelt-value questions apart.

Every figure is recomputed by executing candidates and gold on the databases (BIRD EX).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolkit.chase_sql.data import Dataset
from toolkit.chase_sql.evaluation import bird_ex
from toolkit.chase_sql.executor import Executor
from toolkit.chase_sql.selection import clusters, self_consistency
from toolkit.core.stats import paired_bootstrap


def pct(flags: list[bool]) -> float | None:
    return round(100.0 * sum(flags) / len(flags), 2) if flags else None


def misspelt_qids(root: Path, split: str) -> set[str]:
    """Questions a world marks as writing a value with a typo (the `misspelling` field)."""
    items = json.loads((Path(root) / f"{split}.json").read_text(encoding="utf-8"))
    return {str(q["question_id"]) for q in items if isinstance(q, dict) and q.get("misspelling")}


def question_row(rec: dict[str, Any], gold_sql: str, db_path, executor: Executor) -> dict[str, Any]:
    gold = executor.run(db_path, gold_sql)
    cands = rec.get("candidates") or []
    results = [executor.run(db_path, c["sql"]) for c in cands]
    ok = [bird_ex(r, gold) for r in results]
    draft_ok = [bird_ex(executor.run(db_path, c.get("draft", c["sql"])), gold) for c in cands]
    per_gen: dict[str, dict[str, bool]] = {}
    for g in dict.fromkeys(c.get("generator", "?") for c in cands):
        idx = [i for i, c in enumerate(cands) if c.get("generator", "?") == g]
        sub = [results[i] for i in idx]
        per_gen[g] = {"oracle": any(ok[i] for i in idx), "sc": ok[idx[self_consistency(clusters(sub))]],
                      "candidates": [ok[i] for i in idx]}
    return {"qid": str(rec["qid"]), "chosen": bird_ex(executor.run(db_path, rec.get("sql") or ""), gold),
            "sc": ok[rec.get("self_consistency", 0)] if ok else False, "oracle": any(ok),
            "oracle_drafts": any(draft_ok), "candidates": ok, "drafts": draft_ok, "generators": per_gen,
            "fixed": sum(bool(c.get("fixes")) for c in cands)}


def breakdown(records: list[dict[str, Any]], ds: Dataset, misspelt: set[str], seed: int = 0) -> dict[str, Any]:
    gold = {e.qid: e for e in ds.examples}
    executor = Executor()
    rows = [question_row(r, gold[str(r["qid"])].gold, gold[str(r["qid"])].db_path, executor) for r in records
            if str(r["qid"]) in gold]
    executor.close()
    mixed = [r for r in rows if r["oracle"] and not all(r["candidates"])]
    gens = sorted({g for r in rows for g in r["generators"]})
    out: dict[str, Any] = {
        "n": len(rows), "pool": max((len(r["candidates"]) for r in rows), default=0),
        "ex_selected": pct([r["chosen"] for r in rows]), "ex_self_consistency": pct([r["sc"] for r in rows]),
        "oracle": pct([r["oracle"] for r in rows]),
        "selected_minus_sc": paired_bootstrap([100.0 * r["chosen"] for r in rows], [100.0 * r["sc"] for r in rows],
                                              seed=seed),
        "n_mixed": len(mixed), "selector_accuracy_on_mixed": pct([r["chosen"] for r in mixed]),
        "sc_accuracy_on_mixed": pct([r["sc"] for r in mixed]),
        "candidate_ex": pct([x for r in rows for x in r["candidates"]]),
        "fixer": {"draft_candidate_ex": pct([x for r in rows for x in r["drafts"]]),
                  "fixed_candidate_ex": pct([x for r in rows for x in r["candidates"]]),
                  "oracle_drafts": pct([r["oracle_drafts"] for r in rows]),
                  "oracle_fixed": pct([r["oracle"] for r in rows]),
                  "candidates_sent_to_fixer": sum(r["fixed"] for r in rows)},
        "generators": {g: {"candidate_ex": pct([x for r in rows if g in r["generators"]
                                                for x in r["generators"][g]["candidates"]]),
                           "oracle": pct([r["generators"][g]["oracle"] for r in rows if g in r["generators"]]),
                           "self_consistency": pct([r["generators"][g]["sc"] for r in rows if g in r["generators"]])}
                       for g in gens},
    }
    miss = [r for r in rows if r["qid"] in misspelt]
    out["misspelt"] = {"n": len(miss), "ex_selected": pct([r["chosen"] for r in miss]),
                       "oracle": pct([r["oracle"] for r in miss]), "candidate_ex": pct([x for r in miss
                                                                                       for x in r["candidates"]])}
    return out
