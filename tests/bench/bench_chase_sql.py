"""CHASE-SQL overhead outside the LLM: value lookup + 21 executions + clustering + tournament per question,
and the MinHash LSH index build time per 100k values (vectorized signatures vs datasketch value by value),
and the wall time per question of a default `run` (3 generators x 7, fixer up to 3 attempts within 120 s, the
prompted selector) with the shipped generator on the first hand-written foreign questions, with the schema and
grammar constraint (the default) and without it.

Run from the repo root: python tests/bench/bench_chase_sql.py  -> bench-results/chase_sql.json
"""

from __future__ import annotations

import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.support.datasketch_ref import reference_lsh, reference_signatures  # noqa: E402
from toolkit.chase_sql.data import load_dataset  # noqa: E402
from toolkit.chase_sql.executor import Executor  # noqa: E402
from toolkit.chase_sql.selection import clusters, tournament  # noqa: E402
from toolkit.chase_sql.values import ValueIndex, build_index, signatures  # noqa: E402

DEMO = ROOT / "assets" / "chase_sql" / "demo"
FOREIGN = ROOT / "assets" / "chase_sql" / "foreign"
GENERATOR = ROOT / "assets" / "chase_sql" / "generator"
DEFAULT_QUESTIONS = 2  # a default question costs minutes on a shared CPU
PREDICTIONS = ROOT / "assets" / "chase_sql" / "predictions-dev.jsonl"


def per_question_overhead(cache: Path) -> dict:
    ds = load_dataset(DEMO)
    preds = {p["qid"]: p for p in map(json.loads, PREDICTIONS.read_text().splitlines())}
    for db in {e.db_path for e in ds.examples}:
        build_index(db, cache_dir=cache)  # built once per database, as in a run
    times, cpu, lookups, execs, selects, comparisons = [], [], [], [], [], []
    for e in ds.examples:
        pred = preds[e.qid]
        t0, c0 = time.perf_counter(), time.process_time()
        idx = build_index(e.db_path, cache_dir=cache)  # cached: hash check + load
        idx._bands = None  # rebuild the band table from the stored signatures every time (worst case)
        idx.lookup(pred["keywords"])
        t1 = time.perf_counter()
        ex = Executor()  # fresh: no result cache
        results = [ex.run(e.db_path, c["sql"]) for c in pred["candidates"]]
        ex.close()
        t2 = time.perf_counter()
        ids = clusters(results)
        tour = tournament(ids, lambda a, b: "A" if (a + b) % 2 else "B")  # instant selector: LLM time excluded
        t3 = time.perf_counter()
        times.append(t3 - t0)
        cpu.append(time.process_time() - c0)
        lookups.append(t1 - t0)
        execs.append(t2 - t1)
        selects.append(t3 - t2)
        comparisons.append(tour.comparisons)
    return {"questions": len(times), "pool": len(pred["candidates"]),
            "mean_ms": round(1000 * statistics.mean(times), 2), "max_ms": round(1000 * max(times), 2),
            "cpu_mean_ms": round(1000 * statistics.mean(cpu), 2), "cpu_max_ms": round(1000 * max(cpu), 2),
            "lookup_mean_ms": round(1000 * statistics.mean(lookups), 2),
            "executions_mean_ms": round(1000 * statistics.mean(execs), 2),
            "cluster_tournament_mean_ms": round(1000 * statistics.mean(selects), 3),
            "comparisons_mean": round(statistics.mean(comparisons), 1),
            # the machine this runs on is often shared: CPU time is what one question costs on an idle core
            "goal_under_1s_cpu": max(cpu) < 1.0, "goal_under_1s_wall": max(times) < 1.0}


def default_pipeline_time(cache: Path, limit: int = DEFAULT_QUESTIONS, constraint: bool = True) -> dict:
    """Wall seconds per question of the pipeline with every default, the shipped generator playing every role
    (with the schema and grammar constraint, the default, or without it: `--no-schema-constraint`)."""
    from toolkit.chase_sql.pipeline import PipelineConfig, Resources, answer
    from toolkit.chase_sql.schema_constraint import attach
    from toolkit.chase_sql.selectors import make_selector
    from toolkit.core.llm import from_uri

    llm = from_uri(f"hf:{GENERATOR}", seed=0)
    attach(llm, constraint)
    res = Resources(PipelineConfig(cache_dir=cache))
    selector = make_selector("llm", llm)
    seconds, fixes_stopped, comparisons = [], 0, []
    for e in load_dataset(FOREIGN, limit=limit).examples:
        t0 = time.perf_counter()
        rec = answer(llm, selector, res, db_path=e.db_path, question=e.question, evidence=e.evidence, seed=0,
                     qid=e.qid, db_id=e.db_id)
        seconds.append(round(time.perf_counter() - t0, 1))
        fixes_stopped += sum("fix_stopped" in c for c in rec["candidates"])
        comparisons.append(rec["comparisons"])
    return {"questions": len(seconds), "pool": len(rec["candidates"]), "seconds": seconds,
            "mean_s": round(statistics.mean(seconds), 1), "max_s": max(seconds),
            "fix_budget_s": res.config.fix_seconds, "candidates_fix_stopped": fixes_stopped,
            "selector_comparisons": comparisons}


def lsh_build(tmp: Path, n: int = 100_000) -> dict:
    rng = random.Random(0)
    syll = ["ka", "ri", "mo", "sen", "tal", "vor", "lu", "bi", "dre", "ost", "an", "el", "qui", "zor", "pha"]
    vals = {" ".join("".join(rng.choice(syll) for _ in range(rng.randint(2, 4))).title()
                     for _ in range(rng.randint(1, 3))) for _ in range(n * 2)}
    vals = sorted(vals)[:n]
    db = tmp / "big.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE people (pid INTEGER PRIMARY KEY, name TEXT)")
    conn.executemany("INSERT INTO people (name) VALUES (?)", [(v,) for v in vals])
    conn.commit()
    conn.close()
    t0, c0 = time.perf_counter(), time.process_time()
    idx = build_index(db, cache_dir=tmp / "cache", force=True)
    t_build, c_build = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    idx.bands()
    t_lsh, c_lsh = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter()
    cached = build_index(db, cache_dir=tmp / "cache")
    t_cached = time.perf_counter() - t0
    probe = vals[12345]
    typo = probe[:3] + probe[4:]
    t0 = time.perf_counter()
    found = idx.lookup([typo])
    t_query = time.perf_counter() - t0
    sample = vals[:5000]
    c0 = time.process_time()
    signatures(sample)
    t_vec = time.process_time() - c0
    c0 = time.process_time()
    reference_signatures(sample)
    t_ref = time.process_time() - c0
    c0 = time.process_time()
    small = ValueIndex(db, idx.entries[:20000], idx.hashes[:20000], idx.owners[:20000])
    small.bands()
    t_bands = time.process_time() - c0
    c0 = time.process_time()
    reference_lsh(small)
    t_datasketch = time.process_time() - c0
    per = 100_000 / len(idx.entries)
    return {"values": len(idx.entries), "lsh_keys": int(len(idx.hashes)),
            "hash_seconds_per_100k": round(t_build * per, 2), "hash_cpu_seconds_per_100k": round(c_build * per, 2),
            "band_table_seconds_per_100k": round(t_lsh * per, 2),
            "band_table_cpu_seconds_per_100k": round(c_lsh * per, 2),
            "cached_load_seconds": round(t_cached, 3), "query_ms": round(1000 * t_query, 2),
            "typo_found": bool(found) and found[0].value == probe and cached.rehashed == 0,
            "signatures_speedup_vs_datasketch_loop": round(t_ref / t_vec, 2),
            "band_table_speedup_vs_datasketch_lsh_insert": round(t_datasketch / max(t_bands, 1e-6), 1)}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        overhead = per_question_overhead(tmp / "demo-cache")
        lsh = lsh_build(tmp)
        model = (GENERATOR / "config.json").is_file()
        default = default_pipeline_time(tmp / "foreign-cache") if model else None
        free = default_pipeline_time(tmp / "foreign-cache", constraint=False) if model else None
    figures = {"per_question_overhead": overhead, "lsh_build": lsh, "default_pipeline": default,
               "default_pipeline_no_constraint": free}
    print(f"per-question overhead (lookup + {overhead['pool']} executions + clustering + tournament): "
          f"mean {overhead['mean_ms']} ms, max {overhead['max_ms']} ms wall; CPU mean {overhead['cpu_mean_ms']} ms, "
          f"max {overhead['cpu_max_ms']} ms (goal < 1000 ms)")
    print(f"LSH index per 100k values: hashing {lsh['hash_seconds_per_100k']} s wall "
          f"({lsh['hash_cpu_seconds_per_100k']} s CPU) + band table {lsh['band_table_seconds_per_100k']} s wall "
          f"({lsh['band_table_cpu_seconds_per_100k']} s CPU); cached load {lsh['cached_load_seconds']} s; "
          f"vectorized signatures {lsh['signatures_speedup_vs_datasketch_loop']}x the datasketch per-value loop "
          f"(CPU time); band table {lsh['band_table_speedup_vs_datasketch_lsh_insert']}x faster to build than "
          f"datasketch MinHashLSH inserts")
    if default:
        print(f"default pipeline, shipped generator ({default['pool']} candidates, fixer within "
              f"{default['fix_budget_s']:g} s, prompted selector): {default['seconds']} s per question "
              f"(mean {default['mean_s']} s, max {default['max_s']} s; {default['candidates_fix_stopped']} candidates "
              f"stopped by the fixer budget)")
        print(f"the same without the schema constraint: {free['seconds']} s per question (mean {free['mean_s']} s, "
              f"max {free['max_s']} s); with it {round(default['mean_s'] / max(free['mean_s'], 0.1), 2)}x as long")
    out = ROOT / "bench-results"
    out.mkdir(exist_ok=True)
    (out / "chase_sql.json").write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
