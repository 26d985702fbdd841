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
    ious = crop_ious(chains, golds)
    return {"metric": metric, **_block(values, seconds),
            "by_kind": {k: _block(*v) for k, v in sorted(per_kind.items())},
            "by_policy": {k: _block(*v) for k, v in sorted(per_policy.items())}, "unknown_ids": missing,
            "unanswered": len(unanswered), **({"crop_iou": ious} if ious else {})}


def crop_ious(chains: list[dict], golds: dict[str, dict]) -> dict:
    """Per kind: IoU of each chain's last crop (traced back to the input image) with its best gold box;
    the mean and the share >= 0.5. A model's chain (policy vlm) that made no crop scores 0; chains of
    policies that never crop (one-shot) are left out."""
    from toolkit.cogcom.boxes import iou
    from toolkit.cogcom.runtime import crop_on_scene

    per: dict[str, list[float]] = {}
    for chain in chains:
        gold = golds.get(chain["id"])
        cropped = any(s.get("name") == "CROP_AND_ZOOMIN" for s in chain.get("steps") or [])
        if gold is None or not gold.get("boxes") or not (cropped or chain.get("policy") == "vlm"):
            continue
        box = crop_on_scene(chain.get("steps") or [])
        value = max(iou(box, g) for g in gold["boxes"]) if box is not None else 0.0
        per.setdefault(gold.get("kind", "all"), []).append(value)
    return {k: {"n": len(v), "mean": round(sum(v) / len(v), 4),
                "share_at_least_0.5": round(sum(x >= 0.5 for x in v) / len(v), 4)} for k, v in sorted(per.items())}
