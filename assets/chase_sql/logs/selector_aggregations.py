"""A selector on the test pools: every distinct ordered pair's P(A) in one batched pass, then five aggregations
(the README's table in "The selector continued on pools of 360 more training questions"). Usage:
PYTHONPATH=. python assets/chase_sql/logs/selector_aggregations.py SELECTOR_DIR [POOLS] [DATA] [POOL_SPEC] > out.json
"""
import json
import sys

from toolkit.chase_sql.breakdown import parse_pool
from toolkit.chase_sql.data import load_dataset
from toolkit.chase_sql.evaluation import bird_ex
from toolkit.chase_sql.executor import Executor
from toolkit.chase_sql.learned.pairwise import ModelSelector, pair_text
from toolkit.chase_sql.selection import clusters, result_text, self_consistency, tournament
from toolkit.core.records import load_records
from toolkit.core.stats import paired_bootstrap

sel_dir = sys.argv[1]
pools = sys.argv[2] if len(sys.argv) > 2 else "assets/chase_sql/pools-test21.jsonl"
data = sys.argv[3] if len(sys.argv) > 3 else "assets/chase_sql/world-test"
spec = parse_pool(sys.argv[4] if len(sys.argv) > 4 else "dc:7,qp:7,os:7")
ds = load_dataset(data, "dev")
gold = {e.qid: e for e in ds.examples}
ex = Executor()
qs = []
texts = {}
for rec in load_records(pools, types=["sql.prediction"]):
    e = gold[str(rec["qid"])]
    g = ex.run(e.db_path, e.gold)
    cands = [c for c in rec["candidates"] if c.get("sample", 0) < spec.get(c.get("generator", "?"), 0)]
    res = [ex.run(e.db_path, c["sql"]) for c in cands]
    ok = [bird_ex(r, g) for r in res]
    ids = clusters(res)
    live = [i for i in range(len(cands)) if ids[i] >= 0]
    pair = {}
    for i in live:
        for j in live:
            if i != j and ids[i] != ids[j]:
                t = pair_text(e.question, e.evidence, cands[i]["sql"], result_text(res[i]), cands[j]["sql"],
                              result_text(res[j]))
                pair[(i, j)] = t
                texts[t] = None
    qs.append({"qid": e.qid, "ok": ok, "ids": ids, "pair": pair})
ex.close()
sel = ModelSelector(sel_dir)
keys = list(texts)
for t, p in zip(keys, sel.prob_a(keys, batch=32), strict=True):
    texts[t] = p


def run(q, mode):
    ids, ok, pair = q["ids"], q["ok"], q["pair"]
    if not ok:
        return False
    if mode == "sc":
        return ok[self_consistency(ids)]
    if mode in ("default", "single"):
        t = tournament(ids, lambda a, b: "A" if texts[pair[(a, b)]] >= 0.5 else "B", both_orders=mode == "default")
        return ok[t.winner]
    live = [i for i in range(len(ids)) if ids[i] >= 0]
    if not live:
        return ok[0]
    sc = {i: 0.0 for i in live}
    for i in live:
        for j in live:
            if i == j:
                continue
            if ids[i] == ids[j]:
                sc[i] += 1  # paper: ordered pairs, same result: the first of the pair wins (each member once a pair)
            elif mode == "paper":
                sc[i if texts[pair[(i, j)]] >= 0.5 else j] += 1
            elif mode == "avg":  # order-free verdict: the mean of both orders' P(i wins)
                p = 0.5 * (texts[pair[(i, j)]] + 1 - texts[pair[(j, i)]])
                sc[i if p >= 0.5 else j] += 1  # each ordered visit one point, as in the paper's loop
            elif mode == "soft":
                sc[i] += texts[pair[(i, j)]]
                sc[j] += 1 - texts[pair[(i, j)]]
    best = max(live, key=lambda k: (sc[k], -k))
    return ok[best]


out = {"selector": sel_dir, "n": len(qs), "distinct_pair_texts": len(texts)}
base = [100.0 * run(q, "sc") for q in qs]
mixed = [q for q in qs if any(q["ok"]) and not all(q["ok"])]
for mode in ("sc", "default", "single", "paper", "avg", "soft"):
    got = [100.0 * run(q, mode) for q in qs]
    out[mode] = {"ex": sum(got) / len(got), "vs_sc": paired_bootstrap(got, base, seed=0),
                 "mixed": sum(run(q, mode) for q in mixed) / max(1, len(mixed))}
print(json.dumps(out))
