"""Text-only label audit: parse the question, realize it numerically, compare with the gold label."""

from __future__ import annotations

import numpy as np

from toolkit.geomrel import dsl, grammar, numeric

STATUSES = ("agree", "disagree", "ambiguous", "inconsistent", "unparsed")


def derive_from_text(question: str, samples: int = 32, seed: int = 0) -> dict:
    """{'status': ..., 'derived': relation or None, 'unparsed': [...], 'domain': ...} from the text alone."""
    with np.errstate(all="ignore"):  # random realizations far out overflow harmlessly; they are discarded
        return _derive(question, samples, seed)


def _derive(question: str, samples: int, seed: int) -> dict:
    body, options = grammar.split_question(question)
    steps, unparsed = grammar.read(body)
    asks = [s for s in steps if s["op"] == "ask"]
    out = {"derived": None, "unparsed": unparsed, "domain": asks[-1]["domain"] if asks else None, "options": options}
    if unparsed or len(asks) != 1:
        return {**out, "status": "unparsed", "reason": "no question sentence" if not asks else "unreadable sentence"}
    q, steps = asks[0], [s for s in steps if s["op"] != "ask"]
    bad = [s for s in steps if s.get("bad_count")]
    if bad:
        return {**out, "status": "inconsistent", "reason": f"{''.join(bad[0]['pts'])} is not a {bad[0]['word']}"}
    if any(s["op"] == "polygon" for s in steps if q["domain"] == "shape" and s["pts"] == q["shape"]):
        return {**out, "status": "ambiguous", "reason": "convexity or vertex order of the polygon is not stated"}
    known, placed = set(), []
    for s in steps:  # points first named in a stated relation ("AB ⊥ EF") are free points
        if s["op"].startswith("given_"):
            placed += [{"op": "free", "pts": [p]} for p in dict.fromkeys(s["pts"]) if p not in known]
        known |= set(s["pts"])
        placed.append(s)
    steps, known = placed, set()
    for s in steps:
        later = set(s["pts"][1:]) if s["op"] not in grammar.SHAPE_OPS.values() else set()
        if s["op"] not in ("free",) and not s["op"].startswith("given_") and later - known:
            missing = "".join(sorted(later - known))
            return {**out, "status": "ambiguous", "reason": f"step uses undefined points {missing}"}
        known |= set(s["pts"])
    needed = set(q["a"]) | set(q["b"]) | set(q.get("shape", []))
    if needed - known:
        return {**out, "status": "ambiguous", "reason": f"points {''.join(sorted(needed - known))} are never defined"}
    try:
        # containment has no optimiser behind it: rarer sides of a boundary need more samples
        k = samples * (4 if q["domain"] == "shape" else 1)
        thetas = numeric.realizations(steps, k, np.random.default_rng(seed))
    except numeric.Inconsistent as exc:
        return {**out, "status": "inconsistent", "reason": str(exc)}
    # a witness: one realization of the text (float coordinates), so a disagreement can be checked by hand
    witness = {name: [round(float(v), 6) for v in xy] for name, xy in sorted(numeric.points(steps, thetas[0]).items())}
    derived = numeric.decide(steps, q, thetas)
    found = {**out, "status": "derived", "derived": derived, "witness": witness}
    if q["domain"] == "angle":  # the anchor's SUP code means a linear pair, not any two angles summing to 180°
        found["linear_pair"] = numeric.linear_pair(q, [numeric.points(steps, th) for th in thetas])
    return found


def verify_item(item: dict, samples: int = 32, seed: int = 0) -> dict:
    """A geomrel.verdict body for one item: status, derived, gold, unparsed clauses."""
    found = derive_from_text(item["question"], samples, seed)
    options = item.get("options") or found["options"]
    if found["status"] == "unparsed":  # not the generator's wording: read it as the benchmark's own
        from toolkit.geomrel.anchor_verify import verify_anchor

        body, _ = grammar.split_question(item["question"])
        anchor = verify_anchor(item, body, options, seed)
        if anchor["status"] != "unparsed" or not found["unparsed"]:
            return anchor
    letter = item.get("answer")
    gold_text = options[ord(letter) - 65] if letter and 0 <= ord(letter) - 65 < len(options) else None
    domain = found["domain"]
    gold = dsl.relation_of_text(domain, gold_text) if domain and gold_text else None
    verdict = {"id": item.get("id"), "gold": gold, "derived": found["derived"], "unparsed": found["unparsed"]}
    if found["status"] != "derived":
        return {**verdict, "status": found["status"], "reason": found.get("reason")}
    derived_letter = None
    if domain:
        text = dsl.option_text(domain, found["derived"])
        derived_letter = "ABCDE"[options.index(text)] if text in options else None
    status = "agree" if found["derived"] == gold else "disagree"
    verdict = {**verdict, "status": status, "derived_letter": derived_letter, "reason": None,
               "witness": found["witness"] if status == "disagree" else None}
    if "linear_pair" in found:
        verdict["linear_pair"] = found["linear_pair"]
        # SUP read as "linear pair": angles that sum to 180° without forming one are flagged
        if found["derived"] == "supplementary" and not found["linear_pair"]:
            verdict["sup_flag"] = "sums to 180° but is not a linear pair"
    return verdict
