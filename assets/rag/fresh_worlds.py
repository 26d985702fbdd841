"""The reader on fresh worlds, run the way `reason rag run` runs it (BM25, greedy), as one JSON report.

    PYTHONPATH=. python assets/rag/fresh_worlds.py READER_DIR 1003,1007 [multi-hop questions per world]

Per world: the first 40 1-hop test questions with k=9 (BM25's order: the gold document ranks first, written
nearest the question), the same nine documents with the gold one at a random place (only reading the asked
entity scores), and 2-/3-hop questions with RAG (k=1, 4, 16) and IterDRAG (k=1, 4; n = hops + 1): accuracy,
calls and effective tokens per configuration, and the best IterDRAG against the best RAG (paired bootstrap).
"""

from __future__ import annotations

import json
import random
import sys
import time

from toolkit.core.llm import from_uri
from toolkit.core.stats import paired_bootstrap
from toolkit.rag import index as ix
from toolkit.rag import prompts, world
from toolkit.rag.methods import Config, Runner
from toolkit.rag.metrics import accuracy

ONE_HOP = 40


def main(path: str, seeds: list[int], multi: int = 30) -> dict:
    llm = from_uri(f"hf:{path}?device=cpu&batch_size=40")
    per: dict[str, list[float]] = {}
    t0 = time.time()
    for seed in seeds:
        w = world.generate(seed, per_hop=max(ONE_HOP, multi), demo_per_hop=1)
        idx = ix.build([d.record() for d in w.docs])
        by_id = {d.id: d.record() for d in w.docs}
        run = Runner(llm, idx)
        q1 = [q.record() for q in w.questions if q.hops == 1 and q.split == "test"][:ONE_HOP]
        per.setdefault("1hop rag k=9", []).extend(_accs(run.run(q1, Config("rag", 9)), q1))
        rng, requests = random.Random(seed), []
        for q in q1:
            gold = by_id[q["decomposition"][0]["doc"]]
            docs = [x for x in idx.top(q["question"], 9) if x["id"] != gold["id"]][:8]
            docs.insert(rng.randint(0, len(docs)), gold)
            prompt = prompts.build_prompt("rag", q["question"], docs, [])
            requests.append(prompts.messages(prompts.mark_query_terms(prompt) if run.mark else prompt))
        outs = llm.complete_many(requests, temperature=0.0, max_tokens=32, stop=["\n"])
        per.setdefault("1hop k=9 gold at a random place", []).extend(
            accuracy(prompts.parse_line(o.text)[1], q["answers"]) for o, q in zip(outs, q1, strict=True))
        for hops in (2, 3):
            qs = [q.record() for q in w.questions if q.hops == hops and q.split == "test"][:multi]
            for cfg in (Config("rag", 1), Config("rag", 4), Config("rag", 16), Config("iterdrag", 1, 0, hops + 1),
                        Config("iterdrag", 4, 0, hops + 1)):
                recs = run.run(qs, cfg)
                per.setdefault(f"{hops}hop {cfg.key()}", []).extend(_accs(recs, qs))
                per.setdefault(f"{hops}hop {cfg.key()} calls", []).extend(r["calls"] for r in recs)
                per.setdefault(f"{hops}hop {cfg.key()} tokens", []).extend(r["effective_tokens"] for r in recs)
    out: dict = {"reader": path, "worlds": seeds}
    for key, vals in per.items():
        out[key] = round(sum(vals) / len(vals), 3)
        if not key.endswith(("calls", "tokens")):
            out[key + " n"] = len(vals)
    for hops in (2, 3):
        scored = [k for k in per if k.startswith(f"{hops}hop ") and k.count(" ") == 1]
        it = max((k for k in scored if "iterdrag" in k), key=lambda k: out[k])
        rag = max((k for k in scored if k.split()[1].startswith("rag")), key=lambda k: out[k])
        gain = paired_bootstrap(per[it], per[rag])
        out[f"{hops}hop best iterdrag vs best rag"] = {"iterdrag": it, "rag": rag, **gain}
    out["wall_s"] = round(time.time() - t0, 1)
    return out


def _accs(records: list[dict], questions: list[dict]) -> list[float]:
    return [accuracy(r["prediction"], q["answers"]) for r, q in zip(records, questions, strict=True)]


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], [int(x) for x in sys.argv[2].split(",")],
                          *(int(x) for x in sys.argv[3:4])), indent=1))
