"""A selector on the held-out questions of train-selector's split (same pool files, seed 0, 32 records a question,
pairs of distinct SQL): the held-out figures of the shipped selector in the README. Usage:
PYTHONPATH=. python assets/chase_sql/logs/selector_heldout.py SELECTOR_DIR POOLS_JSONL... (each next to its world dir)
"""
import json
import sys
from pathlib import Path

from toolkit.chase_sql.data import load_dataset
from toolkit.chase_sql.learned.pairwise import ModelSelector, score_pairs
from toolkit.chase_sql.learned.train_pairwise import split_by_question
from toolkit.chase_sql.selector_train import build_pairs
from toolkit.core.records import load_records

sel, files = sys.argv[1], sys.argv[2:]
pairs = []
for k, f in enumerate(files):
    found = build_pairs(load_records(f, types=["sql.prediction"]), load_dataset(Path(f).with_suffix(""), "dev"),
                        seed=0, max_per_question=32, unit="sql")
    for p in found:
        p["qid"] = f"{k}:{p['qid']}" if len(files) > 1 else p["qid"]
    pairs += found
train, held = split_by_question(pairs, 0.1, 0)
got = score_pairs(ModelSelector(sel), held)
got.pop("probs")
print(json.dumps({"selector": sel, "files": files, "pairs": len(pairs), **got}))
