"""Record builders for `reason matcha` (type and schema first, then the fields)."""

from __future__ import annotations

from toolkit.core.records import make_record
from toolkit.matcha.adapt import AdaptResult, accuracy
from toolkit.matcha.io import Graph


def r6(v: float | None) -> float | None:
    return None if v is None else round(float(v), 6)


def graph_record(path: str, stats: dict, **extra) -> dict:
    return make_record("matcha.graph", 1, path=path, **stats, **extra)


def result_record(res: AdaptResult, target: Graph, **extra) -> dict:
    first = res.trace[0] if res.trace else {}
    return make_record(
        "matcha.result", 1, tta=res.tta, matcha=res.matcha, rounds=res.rounds, lr=res.lr,
        accuracy=r6(accuracy(res.logits, target)), accuracy_base=first.get("accuracy"), chosen_round=res.chosen_round,
        gamma_before=[r6(g) for g in res.gamma_before], gamma_after=[r6(g) for g in res.gamma_after],
        trace=[{k: v for k, v in row.items() if k != "gamma"} for row in res.trace], wall_s=res.wall_s, **extra)


def prediction_records(res: AdaptResult, graph: Graph):
    prob = res.logits.softmax(1).cpu()
    pred = prob.argmax(1).tolist()
    for i, (p, row) in enumerate(zip(pred, prob.tolist(), strict=True)):
        rec = make_record("matcha.prediction", 1, node=i, pred=p, prob=[round(v, 6) for v in row])
        if graph.y is not None:
            rec["label"] = int(graph.y[i])
        yield rec
