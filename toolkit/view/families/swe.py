"""swe.tree / swe.prediction: each search tree as a collapsible tree, node diffs, the final tests table."""

from __future__ import annotations

import json
from typing import Any

from toolkit.view.model import Context, Family, Filter, Item, Rec, Section


def nest(nodes: list[dict], chosen: Any) -> dict | None:
    """The node list as nested dicts from the root; nodes on the path to the chosen one are marked open."""
    by_id = {n.get("id"): dict(n) for n in nodes if isinstance(n, dict)}
    root = by_id.get(0) or next((n for n in by_id.values() if n.get("parent") in (None, -1)), None)
    if root is None:
        return None
    path: set = set()
    node = by_id.get(chosen)
    while node is not None and node.get("id") not in path:
        path.add(node.get("id"))
        node = by_id.get(node.get("parent"))
    seen: set = set()

    def build(n: dict) -> dict:
        seen.add(n.get("id"))
        kids = [build(by_id[c]) for c in n.get("children") or [] if c in by_id and c not in seen]
        action = n.get("action") if isinstance(n.get("action"), dict) else {}
        args = json.dumps(action.get("args", {}), ensure_ascii=False)
        tests = n.get("tests") if isinstance(n.get("tests"), dict) else {}
        passed = sum(v == "passed" for v in tests.values())
        return {**n, "kids": kids, "tests_passed": f"{passed}/{len(tests)}" if tests else "",
                "name": action.get("name", "start"), "why": action.get("why", ""),
                "args": args if len(args) <= 90 else args[:87] + "...", "chosen": n.get("id") == chosen,
                "open": n.get("id") in path or n is root}

    return build(root)


def build(ctx: Context, records: dict[str, list[Rec]]) -> list[Section]:
    trees = records.get("swe.tree", [])
    preds = {str(p.data.get("instance_id")): p.data for p in records.get("swe.prediction", [])}
    items: list[Item] = []
    shown: set[str] = set()
    for t in trees:
        rec = t.data
        iid = str(rec.get("instance_id"))
        pred = preds.get(iid)
        shown.add(iid)
        root = nest(rec.get("nodes") or [], rec.get("chosen_node"))
        resolved = rec.get("resolved", pred.get("resolved") if pred else None)
        html = ctx.render("swe_tree.html.j2", rec=rec, root=root, pred=pred, resolved=resolved)
        items.append(Item(html, {"resolved": str(resolved).lower(), "strategy": str(rec.get("strategy", ""))}))
    for iid, pred in preds.items():
        if iid not in shown:
            html = ctx.render("swe_prediction.html.j2", pred=pred)
            items.append(Item(html, {"resolved": str(pred.get("resolved")).lower(),
                                     "strategy": str(pred.get("strategy", ""))}))
    judged = [p for p in preds.values() if p.get("resolved") is not None]
    header = ctx.render("swe_header.html.j2", trees=len(trees), preds=list(preds.values()), judged=judged)
    filters = [Filter("resolved", "resolved", sorted({i.attrs["resolved"] for i in items})),
               Filter("strategy", "strategy", sorted({i.attrs["strategy"] for i in items}))]
    counts = {k: len(v) for k, v in records.items()}
    return [Section("swe", "search trees", counts, items, header=header, filters=filters)]


FAMILY = Family("swe", "search trees", ("swe.tree", "swe.prediction"), build)
