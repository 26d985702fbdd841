"""Scoring predictions against items: accuracy by level, domain and code; 'Cannot be inferred' P/R."""

from __future__ import annotations

from collections import defaultdict

from toolkit.core.errors import InputError
from toolkit.geomrel.dsl import CANNOT


def score(preds: list[dict], golds: dict) -> dict:
    groups: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    tp = fp = fn = parse_fail = 0
    for p in preds:
        item = golds.get(p["id"])
        if item is None:
            raise InputError(f"prediction for id {p['id']!r} has no item in --gold")
        ok = p.get("letter") is not None and p["letter"] == item["answer"]
        parse_fail += p.get("letter") is None
        keys = ("all", f"level:{item.get('level')}", f"domain:{item.get('domain')}", f"code:{item.get('relation')}")
        for key in keys:
            groups[key][0] += ok
            groups[key][1] += 1
        gold_cannot = item["options"][ord(item["answer"]) - 65] == CANNOT
        pred_cannot = p.get("letter") is not None and 0 <= ord(p["letter"]) - 65 < len(item["options"]) \
            and item["options"][ord(p["letter"]) - 65] == CANNOT
        tp += gold_cannot and pred_cannot
        fp += pred_cannot and not gold_cannot
        fn += gold_cannot and not pred_cannot
    n = groups["all"][1]
    return {"n": n, "accuracy": groups["all"][0] / n if n else 0.0,
            "by": {k: {"accuracy": c / t, "n": t} for k, (c, t) in sorted(groups.items()) if k != "all"},
            "cannot_precision": tp / (tp + fp) if tp + fp else None,
            "cannot_recall": tp / (tp + fn) if tp + fn else None, "parse_failures": parse_fail}
