"""`report`: one score per fine-tune run, bootstrap CI over runs, permutation tests vs baseline/control.

Input: `selfaware.answer` records (a run = the `run` field, the model URI by default; a group = `group`)
or `selfaware.ooc` records of the out-of-context experiment (summarised by family and condition).
"""

from __future__ import annotations

from collections import defaultdict

from toolkit.core.errors import InputError
from toolkit.selfaware.scoring import bootstrap_ci, diff_ci, permutation_p


def run_scores(answers: list[dict]) -> dict[str, dict[str, float]]:
    """group -> run -> mean score over that run's scored answers."""
    acc: dict = defaultdict(lambda: defaultdict(list))
    for a in answers:
        if a.get("score") is not None:
            acc[a.get("group", "default")][a.get("run", a.get("model", "run"))].append(float(a["score"]))
    return {g: {r: sum(v) / len(v) for r, v in runs.items()} for g, runs in acc.items()}


def check_same_questions(answers: list[dict]) -> None:
    qs: dict = defaultdict(set)
    for a in answers:
        qs[a.get("group", "default")].add(a["question"])
    groups = sorted(qs)
    for g in groups[1:]:
        if qs[g] != qs[groups[0]]:
            diff = sorted(qs[g] ^ qs[groups[0]])
            raise InputError(f"report: groups '{groups[0]}' and '{g}' were asked different questions: "
                             f"{', '.join(diff)}")


def compare(a: list[float], b: list[float]) -> dict:
    out = {"difference": round(sum(a) / len(a) - sum(b) / len(b), 4)}
    if len(a) >= 2 and len(b) >= 2:
        lo, hi = diff_ci(a, b)
        out.update(ci95=[round(lo, 4), round(hi, 4)], p_value=round(permutation_p(a, b), 4))
    return out


def report(answers: list[dict], baseline: str | None = None, control: str | None = None) -> dict:
    check_same_questions(answers)
    scores = run_scores(answers)
    for name, flag in ((baseline, "--baseline"), (control, "--control")):
        if name and name not in scores:
            raise InputError(f"{flag} {name}: no such group (groups: {', '.join(sorted(scores))})")
    invalid = sum(int(a.get("invalid") or 0) for a in answers)
    groups = {}
    for g, runs in sorted(scores.items()):
        vals = list(runs.values())
        lo, hi = bootstrap_ci(vals)
        entry = {"runs": len(vals), "mean": round(sum(vals) / len(vals), 4), "ci95": [round(lo, 4), round(hi, 4)],
                 "per_run": {r: round(v, 4) for r, v in sorted(runs.items())}}
        for name, key in ((baseline, "vs_baseline"), (control, "vs_control")):
            if name and name != g:
                entry[key] = compare(vals, list(scores[name].values()))
        groups[g] = entry
    per_question: dict = defaultdict(lambda: defaultdict(list))
    for a in answers:
        if a.get("score") is not None:
            per_question[a["question"]][a.get("group", "default")].append(a["score"])
    return {"groups": groups, "invalid_answers": invalid,
            "per_question": {q: {g: round(sum(v) / len(v), 4) for g, v in sorted(gs.items())}
                             for q, gs in sorted(per_question.items())}}


def _mean(xs):
    return round(sum(xs) / len(xs), 4) if xs else None


def summarize_ooc(runs: list[dict], base: dict | None = None) -> dict:
    """Per family: behaviour per condition, description A-B difference (bootstrap CI, permutation p),
    shuffled vs un-fine-tuned, known-persona movement; eval-only templates reported separately."""
    out: dict = {}
    by: dict = defaultdict(list)
    for r in runs:
        by[(r["family"], r["condition"], r.get("embed_row", True))].append(r)
    for family in sorted({r["family"] for r in runs}):
        for embed in sorted({r.get("embed_row", True) for r in runs}, reverse=True):
            cell = {c: by.get((family, c, embed), []) for c in ("A", "B", "S")}
            if not any(cell.values()):
                continue
            entry = {"runs": {c: len(v) for c, v in cell.items()},
                     "behaviour": {c: _mean([r["behaviour"] for r in v]) for c, v in cell.items()},
                     "description": {c: _mean([r["description"]["all"] for r in v]) for c, v in cell.items()},
                     "description_eval_only": {c: _mean([r["description"]["eval_only"] for r in v])
                                               for c, v in cell.items()},
                     "known_move": _mean([r["known_move"] for v in cell.values() for r in v])}
            a = [r["description"]["all"] for r in cell["A"]]
            b = [r["description"]["all"] for r in cell["B"]]
            if len(a) >= 2 and len(b) >= 2:
                entry["description_A_minus_B"] = compare(a, b)
                entry["eval_only_A_minus_B"] = compare([r["description"]["eval_only"] for r in cell["A"]],
                                                       [r["description"]["eval_only"] for r in cell["B"]])
            if base and family in base.get("families", {}) and cell["S"]:
                ref = base["families"][family]["held_out_description"]
                entry["shuffled_minus_base"] = round(entry["description"]["S"] - ref, 4)
            out[f"{family}{'' if embed else ' (no embedding row)'}"] = entry
    return out
