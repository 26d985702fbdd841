"""Summaries of a generator-verifier agreement run: verdict counts per level, the disagreements, and the exact
recomputation of every "Cannot be inferred" item's two witnesses (their relations must differ).

python -m toolkit.geomrel.audit ITEMS.jsonl VERDICTS.jsonl [ITEMS VERDICTS ...]   prints one JSON summary
"""

from __future__ import annotations

import json
import sys
from collections import Counter

import sympy as sp

from toolkit.core.records import read_records
from toolkit.geomrel import exact, labels


def witnesses_differ(item: dict) -> bool:
    """Both witnesses recompute (exactly, from the construction) to the relations they claim, those differ, and
    neither gives two names one point (a degenerate figure, which the text does not describe)."""
    if any(len({tuple(xy) for xy in w["points"].values()}) < len(w["points"]) for w in item["witnesses"]):
        return False
    c = item["construction"]
    r = exact.realize(c["steps"])
    found = []
    for w in item["witnesses"]:
        values = {p.symbol: sp.sympify(w["params"][str(p.symbol)]) for p in r.params}
        found.append(labels.relation_at(r, c["question"], values))
    return len(found) == 2 and found == [w["relation"] for w in item["witnesses"]] and found[0] != found[1]


def summarize(pairs: list[tuple[str, str]]) -> dict:
    counts: dict[str, Counter] = {}
    disagreements, cannot, bad_witness = [], 0, []
    for items_path, verdicts_path in pairs:
        items = {it["id"]: it for it in read_records(items_path)}
        for v in read_records(verdicts_path):
            item = items[v["id"]]
            counts.setdefault(item["level"], Counter())[v["status"]] += 1
            if v["status"] != "agree":
                disagreements.append({"id": v["id"], "status": v["status"], "gold": v["gold"],
                                      "derived": v["derived"], "reason": v.get("reason"),
                                      "templates": item.get("templates")})
        for item in items.values():
            if item["canonical"] == "cannot":
                cannot += 1
                if not witnesses_differ(item):
                    bad_witness.append(item["id"])
    total = sum(sum(c.values()) for c in counts.values())
    agree = sum(c["agree"] for c in counts.values())
    return {"items": total, "agree": agree, "agreement": round(agree / total, 4) if total else None,
            "by_level": {k: dict(c) for k, c in counts.items()}, "cannot_items": cannot,
            "cannot_witnesses_differ": cannot - len(bad_witness), "bad_witnesses": bad_witness,
            "disagreements": disagreements}


if __name__ == "__main__":
    args = sys.argv[1:]
    print(json.dumps(summarize(list(zip(args[::2], args[1::2], strict=True))), indent=1))
