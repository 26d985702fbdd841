"""The paper's table from one run's records: each generator alone, the fixer's gain, selector against
self-consistency (paired bootstrap) against the oracle, and the misspelt-value questions apart.

Every figure is recomputed by executing candidates and gold on the databases (BIRD EX). A pool spec
(`dc:7,qp:7,os:7`) keeps the first k samples of each generator, so one run with many samples per
generator gives both the mixed pool and each generator's own pool of the same size; within a pool,
self-consistency is recomputed and, with a selector, the pairwise tournament is run again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolkit.chase_sql.data import Dataset
from toolkit.chase_sql.evaluation import bird_ex
from toolkit.chase_sql.executor import Executor
from toolkit.chase_sql.selection import clusters, self_consistency, tournament
from toolkit.core.errors import InputError
from toolkit.core.stats import paired_bootstrap


def pct(flags: list[bool]) -> float | None:
    return round(100.0 * sum(flags) / len(flags), 2) if flags else None


def misspelt_qids(root: Path, split: str) -> set[str]:
    """Questions a world marks as writing a value with a typo (the `misspelling` field)."""
    items = json.loads((Path(root) / f"{split}.json").read_text(encoding="utf-8"))
    return {str(q["question_id"]) for q in items if isinstance(q, dict) and q.get("misspelling")}


def parse_pool(spec: str | None) -> dict[str, int] | None:
    """`dc:7,qp:7,os:7` -> {generator: samples kept}; None keeps every candidate."""
    if not spec:
        return None
    out = {}
    for part in spec.split(","):
        gen, _, k = part.strip().partition(":")
        if not gen or not k.isdigit() or int(k) < 1:
            raise InputError(f"--pool {spec}: expected GENERATOR:SAMPLES pairs such as dc:7,qp:7,os:7")
        out[gen] = int(k)
    return out


def question_row(rec: dict[str, Any], gold_sql: str, db_path, executor: Executor, pool: dict[str, int] | None,
                 selector) -> dict[str, Any]:
    gold = executor.run(db_path, gold_sql)
    cands = [c for c in rec.get("candidates") or []
             if pool is None or c.get("sample", 0) < pool.get(c.get("generator", "?"), 0)]
    results = [executor.run(db_path, c["sql"]) for c in cands]
    ok = [bird_ex(r, gold) for r in results]
    draft_ok = [bird_ex(executor.run(db_path, c.get("draft", c["sql"])), gold) for c in cands]
    ids = clusters(results)
    sc = self_consistency(ids)
    if selector is not None:
        def choose(a: int, b: int) -> str:
            return selector.choose("", rec.get("question", ""), rec.get("evidence", ""), cands[a]["sql"], results[a],
                                   cands[b]["sql"], results[b])
        chosen = ok[tournament(ids, choose).winner] if ok else False
    elif pool is None:
        chosen = bird_ex(executor.run(db_path, rec.get("sql") or ""), gold)
    else:
        chosen = ok[sc] if ok else False
    per_gen: dict[str, dict[str, Any]] = {}
    for g in dict.fromkeys(c.get("generator", "?") for c in cands):
        idx = [i for i, c in enumerate(cands) if c.get("generator", "?") == g]
        per_gen[g] = {"oracle": any(ok[i] for i in idx), "sc": ok[idx[self_consistency([ids[i] for i in idx])]],
                      "candidates": [ok[i] for i in idx]}
    return {"qid": str(rec["qid"]), "chosen": chosen, "sc": ok[sc] if ok else False, "oracle": any(ok),
            "oracle_drafts": any(draft_ok), "candidates": ok, "drafts": draft_ok, "generators": per_gen,
            "fixed": sum(bool(c.get("fixes")) for c in cands)}


def breakdown(records: list[dict[str, Any]], ds: Dataset, misspelt: set[str], *, pool: str | None = None,
              selector=None, seed: int = 0) -> dict[str, Any]:
    """Figures over the records' questions; `selected` is the record's choice, or with `pool` the tournament
    of `selector` (self-consistency without one) within the pool."""
    gold = {e.qid: e for e in ds.examples}
    kept = parse_pool(pool)
    executor = Executor()
    rows = [question_row(r, gold[str(r["qid"])].gold, gold[str(r["qid"])].db_path, executor, kept, selector)
            for r in records if str(r["qid"]) in gold]
    executor.close()
    mixed = [r for r in rows if r["oracle"] and not all(r["candidates"])]
    gens = sorted({g for r in rows for g in r["generators"]})
    out: dict[str, Any] = {
        "n": len(rows), "pool_spec": pool or "all", "pool": max((len(r["candidates"]) for r in rows), default=0),
        "selection": ("tournament" if selector is not None else
                      "record" if kept is None else "self-consistency"),
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
