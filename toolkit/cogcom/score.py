"""Scoring `cogcom.chain` answers against items: a metric overall, per kind and per policy, and timing."""

from __future__ import annotations

from toolkit.cogcom.metrics import score


def _block(values: list[float], seconds: list[float]) -> dict:
    n = len(values)
    return {"n": n, "score": sum(values) / n if n else 0.0,
            "seconds_per_question": sum(seconds) / len(seconds) if seconds else None}


def score_chains(chains: list[dict], golds: dict[str, dict], metric: str) -> dict:
    per_kind: dict[str, tuple[list[float], list[float]]] = {}
    per_policy: dict[str, tuple[list[float], list[float]]] = {}
    values, seconds, missing = [], [], 0
    for chain in chains:
        gold = golds.get(chain["id"])
        if gold is None:
            missing += 1
            continue
        answers = gold.get("answers") or [gold["answer"]]
        value = score(chain.get("answer"), [str(a) for a in answers], metric)
        values.append(value)
        sec = chain.get("seconds")
        if sec is not None:
            seconds.append(float(sec))
        for table, key in ((per_kind, gold.get("kind", "all")), (per_policy, chain.get("policy", "?"))):
            vals, secs = table.setdefault(key, ([], []))
            vals.append(value)
            if sec is not None:
                secs.append(float(sec))
    unanswered = [i for i in golds if i not in {c["id"] for c in chains}]
    return {"metric": metric, **_block(values, seconds),
            "by_kind": {k: _block(*v) for k, v in sorted(per_kind.items())},
            "by_policy": {k: _block(*v) for k, v in sorted(per_policy.items())}, "unknown_ids": missing,
            "unanswered": len(unanswered)}
