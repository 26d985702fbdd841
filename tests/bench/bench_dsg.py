"""Benchmark of `reason dsg` with the shipped tiny primitive model (assets/dsg/model).

Figures: the speed ratio of level-batched grounding (one `generate` per DAG level and chunk) to
question-at-a-time grounding (goal >= 4x), generator images/s, and claim 2 (DSG with program composition
vs the end-to-end model and the primitive model asked directly) on DSG_BENCH_N items per concept of
fresh held-out seeds. Writes bench-results/dsg.json.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

N = int(os.environ.get("DSG_BENCH_N", "60"))
SEED = 30000  # fresh: training used seed 1, the claims 10000/10001


def generate(out: Path, style: str, n: int) -> tuple[dict, float]:
    from toolkit.core.records import RecordWriter
    from toolkit.dsg.data import generate_split
    from toolkit.dsg.schema import load_schemas
    from toolkit.dsg.styles import get_style

    t0 = time.perf_counter()
    items, prims = generate_split(["tictactoe", "maze", "stacks"], n, get_style(style), SEED, out,
                                  load_schemas(ROOT / "assets/dsg/schemas"))
    seconds = time.perf_counter() - t0
    for name, recs in (("items.jsonl", items), ("primitives.jsonl", prims)):
        with RecordWriter(out / name) as w:
            for r in recs:
                w.write(r)
    return {"images": len(items), "seconds": round(seconds, 2), "images_per_s": round(len(items) / seconds, 1)}, seconds


def answers(path_items: Path, model: Path, mode: str, per_question: bool = False) -> tuple[list[dict], float, int]:
    from toolkit.core.vlm import load_vlm
    from toolkit.dsg.data import read_items
    from toolkit.dsg.ground import GroundingCache, LocalAsker
    from toolkit.dsg.run import run_baseline, run_dsg
    from toolkit.dsg.schema import load_schemas

    items = read_items(path_items)
    asker = LocalAsker(load_vlm(model, device="cpu"), model.name, batch_size=32)
    t0 = time.perf_counter()
    if mode == "dsg":
        recs = list(run_dsg(items, load_schemas(ROOT / "assets/dsg/schemas"), asker, "program", GroundingCache(None),
                            batch_items=16, per_question=per_question))
    else:
        recs = list(run_baseline(items, asker, mode, GroundingCache(None)))
    return recs, time.perf_counter() - t0, asker.calls


def score(recs: list[dict], gold_path: Path, tmp: Path, name: str) -> dict:
    from toolkit.dsg.evaluate import evaluate

    pred = tmp / f"{name}.jsonl"
    pred.write_text("".join(json.dumps(r) + "\n" for r in recs))
    res = evaluate(pred, gold_path)
    return {k: res[k] for k in ("n", "accuracy", "ci95", "by_concept", "mean_concept_accuracy")} | (
        {"first_wrong_node": res["first_wrong_node"]} if res["first_wrong_node"] else {})


def main() -> None:
    model, e2e = ROOT / "assets/dsg/model", ROOT / "assets/dsg/e2e-model"
    result: dict = {"n_per_concept": N, "seed": SEED}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        result["generator"], _ = generate(tmp / "heldout", "heldout", N)
        items = tmp / "heldout" / "items.jsonl"
        dsg, t_batched, calls_batched = answers(items, model, "dsg")
        # speed: the same grounding questions one generate call each, on the first 12 items
        few = tmp / "heldout" / "few.jsonl"  # next to the images its paths name
        few.write_text("".join(items.read_text().splitlines(keepends=True)[:12]))
        _, t_few_batched, _ = answers(few, model, "dsg")
        _, t_few_single, calls_single = answers(few, model, "dsg", per_question=True)
        result["grounding_speed"] = {"items": 12, "batched_s": round(t_few_batched, 2),
                                     "question_at_a_time_s": round(t_few_single, 2),
                                     "ratio": round(t_few_single / t_few_batched, 2), "goal": 4.0,
                                     "question_at_a_time_calls": calls_single}
        result["claim2_heldout"] = {"dsg_program": score(dsg, items, tmp, "dsg"),
                                    "dsg_seconds": round(t_batched, 1), "dsg_generate_calls": calls_batched}
        if e2e.is_dir():
            recs, _, _ = answers(items, e2e, "direct")
            result["claim2_heldout"]["e2e_direct"] = score(recs, items, tmp, "e2e")
        recs, _, _ = answers(items, model, "direct")
        result["claim2_heldout"]["primitive_direct"] = score(recs, items, tmp, "prim")
    out = ROOT / "bench-results" / "dsg.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
