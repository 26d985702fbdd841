"""`equiv` (PPM netlists vs gold) and `eval` (answers vs gold questions)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import load_records, read_records
from toolkit.maps.equiv import anchor_metrics, equivalent
from toolkit.maps.io import iter_netlists
from toolkit.maps.netlist import parse_netlist


def equiv_records(pred: str, gold: Path, simulator):
    golds = {}
    for lineno, rec in enumerate(load_records(gold, types=["maps.circuit"], required=["id", "netlist"]), start=1):
        golds[rec["id"]] = (parse_netlist(rec["netlist"], source=f"{gold}:{lineno}"), rec)
    totals: dict[str, list] = defaultdict(list)
    by_size: dict[str, list] = defaultdict(list)
    claimed_right: list[bool] = []  # equivalence of the reads the reader claims (parsed is not false)
    for cid, _, net, rec in iter_netlists(pred):
        if cid not in golds:
            raise InputError(f"{pred}: field 'id': '{cid}' is not in {gold}")
        gnet, grec = golds[cid]
        row = {"type": "maps.ppm_eval", "schema": 1, "id": cid, "equivalent": False}
        if net is not None:
            gold_full = parse_netlist(grec.get("netlist_full", grec["netlist"]))
            psim = simulator.run(net) if not net.has_empty else None
            gsim = simulator.run(gold_full)
            row["equivalent"] = equivalent(net, gnet)
            row.update(anchor_metrics(net, gnet, psim, gsim) if psim is not None else anchor_metrics(net, gnet))
        for key, value in row.items():
            if isinstance(value, bool):
                totals[key].append(value)
        size = f"{len([e for e in gnet.elements if not e.is_ammeter])} elements, {len(gnet.nets())} nets"
        by_size[size].append(row["equivalent"])
        row["claimed"] = rec.get("parsed") is not False
        totals["claimed"].append(row["claimed"])
        if row["claimed"]:
            claimed_right.append(row["equivalent"])
        yield row
    summary = {k: round(sum(v) / len(v), 4) for k, v in totals.items()}
    # how far a claimed read can be trusted: the share of claimed reads that are equivalent
    summary["equivalent_when_claimed"] = round(sum(claimed_right) / len(claimed_right), 4) if claimed_right else None
    yield {"type": "maps.ppm_summary", "schema": 1, "n": len(totals["equivalent"]), **summary,
           "equivalent_by_size": {k: [round(sum(v) / len(v), 4), len(v)] for k, v in sorted(by_size.items())}}


def close(a: float, b: float, rtol: float) -> bool:
    return abs(a - b) <= rtol * abs(b) + 1e-12


def score_answers(answers: str, gold: Path, rtol: float) -> dict:
    golds = {q["id"]: q for q in load_records(gold, types=["maps.question"], required=["id", "value"])}
    seen, right, letters, abstain = 0, 0, 0, 0
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    backends = set()
    for lineno, a in enumerate(read_records(answers, types=["maps.answer"], required=["id"]), start=1):
        q = golds.get(a["id"])
        if q is None:
            raise InputError(f"{answers}:{lineno}: field 'id': '{a['id']}' is not a question in {gold}")
        seen += 1
        value = a.get("value")
        ok = isinstance(value, (int, float)) and close(float(value), float(q["value"]), rtol)
        right += ok
        letters += a.get("letter") is not None and a.get("letter") == q.get("letter")
        abstain += value is None
        by_kind[q.get("kind", "?")][0] += ok
        by_kind[q.get("kind", "?")][1] += 1
        if a.get("backend"):
            backends.add(a["backend"])
    if not seen:
        raise InputError(f"{answers}: no maps.answer records")
    out = {"type": "maps.eval", "schema": 1, "n": seen, "of_gold": len(golds), "rtol": rtol,
           "numeric_accuracy": round(right / seen, 4), "letter_accuracy": round(letters / seen, 4),
           "abstained": abstain, "by_kind": {k: round(v[0] / v[1], 4) for k, v in sorted(by_kind.items())}}
    if "stand-in" in backends:
        out["backend"] = "stand-in"
        out["note"] = "pipeline demo, not a model result"
    return out
