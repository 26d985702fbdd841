"""The CPU-scale claims, measured from a sweep's records (no model calls here).

1. Per hop count, the best IterDRAG configuration with cost <= L against the best RAG one (any k, same
   budget): accuracies and the paired bootstrap difference over the same questions; alongside, the best
   DRAG configuration (demonstrations and documents, m >= 1) and the best one-call configuration of any
   kind (zs, ms, RAG or DRAG), each under its own label.
2. The allocation model fitted on a random half of the feasible configurations: per task and budget, the
   measured accuracy of the configuration it picks against the best measured one and against documents
   only (the largest k that fits, m = 0, n = 1); also fitted on cheap configurations only (extrapolation)
   and leaving each task out.
3. The allocation model fitted on half of the questions (every configuration, scores from that half alone)
   and tested on the other half: per task and budget, the held-out score of its pick against the best
   held-out score and against picking the best measured configuration of the fitting half.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.core.records import make_record
from toolkit.core.stats import paired_bootstrap
from toolkit.rag import cam as cam_mod


def _best(records: list[dict], task: str, budget: float, methods: tuple[str, ...]) -> dict | None:
    rows = [r for r in records if r["method"] in methods and r.get("feasible", True) and task in r["tasks"]
            and r["tasks"][task]["cost"] <= budget]
    return max(rows, key=lambda r: (r["tasks"][task]["acc"], -r["tasks"][task]["cost"]), default=None)


def iterdrag_vs_rag(records: list[dict], budget: float, task: str) -> dict:
    it = _best(records, task, budget, ("iterdrag",))
    rag = _best(records, task, budget, ("rag", "zs"))
    drag = _best(records, task, budget, ("drag",))
    one_call = _best(records, task, budget, ("zs", "ms", "rag", "drag"))
    out = {"task": task, "budget": budget}
    for name, r in (("iterdrag", it), ("rag", rag), ("drag", drag), ("one_call", one_call)):
        if r is not None:
            out[name] = {"config": r["config"], "acc": r["tasks"][task]["acc"], "cost": r["tasks"][task]["cost"]}
    if it is not None and rag is not None:
        a, b = it["tasks"][task]["by_question"], rag["tasks"][task]["by_question"]
        ids = sorted(set(a) & set(b))
        out["paired"] = paired_bootstrap([a[i] for i in ids], [b[i] for i in ids])
        out["questions"] = len(ids)
    return out


def allocation(records: list[dict], spec: str, budgets: list[int], *, seed: int = 0,
               eval_tasks: list[str] | None = None,
               shift: tuple[float, float, float] = cam_mod.SHIFTS["paper"]) -> dict:
    """Fit on `spec`; per task and budget: picked config's measured Acc vs the best and vs documents only.

    A sweep the model cannot be fitted to (too few graded configurations) gives the reason instead."""
    from toolkit.core.errors import InputError

    try:
        model = cam_mod.fit_records(records, spec, seed=seed, shift=shift)
    except InputError as exc:
        return {"fit_on": spec, "error": str(exc)}
    tasks = eval_tasks or model["tasks"]
    feasible = [r for r in records if r.get("feasible", True)]
    rows = []
    for task in tasks:
        for budget in budgets:
            cands = [{**cam_mod.parse_key(r["config"]), "config": r["config"], "cost": r["tasks"][task]["cost"]}
                     for r in feasible if task in r["tasks"]]
            pick = cam_mod.plan(model, budget, task, cands)
            best = _best(records, task, budget, ("zs", "ms", "rag", "drag", "iterdrag"))
            fits = [r for r in feasible if r["method"] in ("rag", "zs") and r["tasks"][task]["cost"] <= budget]
            docs_only = max(fits, key=lambda r: r["k"], default=None)
            if pick is None or best is None:
                continue
            measured = next(r for r in feasible if r["config"] == pick["config"])["tasks"][task]["acc"]
            rows.append({"task": task, "budget": budget, "picked": pick["config"], "picked_acc": measured,
                         "predicted": pick["predicted"], "best": best["config"], "best_acc": best["tasks"][task]["acc"],
                         "gap": round(best["tasks"][task]["acc"] - measured, 4),
                         "docs_only": docs_only["config"] if docs_only else None,
                         "docs_only_acc": docs_only["tasks"][task]["acc"] if docs_only else None})
    gaps = [r["gap"] for r in rows]
    above = [r["picked_acc"] > r["docs_only_acc"] for r in rows if r["docs_only_acc"] is not None]
    return {"fit_on": spec, "shift": model["shift"], "fit": model["fit"], "heldout": model["heldout"],
            "a": model["a"], "b": model["b"], "c": model["c"], "rows": rows,
            "mean_gap": round(sum(gaps) / len(gaps), 4) if gaps else None,
            "max_gap": round(max(gaps), 4) if gaps else None,
            "above_docs_only": f"{sum(above)}/{len(above)}"}


def _half(records: list[dict], ids: dict[str, set]) -> list[dict]:
    """The records with each task's Acc recomputed over the question ids given for it."""
    out = []
    for r in records:
        tasks = {}
        for task, row in r["tasks"].items():
            vals = [v for q, v in row["by_question"].items() if q in ids.get(task, ())]
            if vals:
                tasks[task] = {**row, "acc": round(sum(vals) / len(vals), 4), "questions": len(vals),
                               "by_question": {q: v for q, v in row["by_question"].items() if q in ids[task]}}
        out.append({**r, "tasks": tasks})
    return out


def question_split(records: list[dict], budgets: list[int], *, seed: int = 0,
                   shift: tuple[float, float, float] = cam_mod.SHIFTS["paper"]) -> dict:
    """Fit on a random half of each task's questions, pick per task and budget, score on the other half."""
    import random

    from toolkit.core.errors import InputError

    fit_ids, test_ids = {}, {}
    for task in sorted({t for r in records for t in r["tasks"]}):
        ids = sorted({q for r in records if task in r["tasks"] for q in r["tasks"][task]["by_question"]})
        random.Random(f"{seed}:{task}").shuffle(ids)
        fit_ids[task], test_ids[task] = set(ids[: len(ids) // 2]), set(ids[len(ids) // 2:])
    fit_half, test_half = _half(records, fit_ids), _half(records, test_ids)
    try:
        model = cam_mod.fit_records(fit_half, "split:1", seed=seed, shift=shift)
    except InputError as exc:
        return {"fit_on": "questions:0.5", "error": str(exc)}
    feasible = [r for r in test_half if r.get("feasible", True)]
    rows = []
    for task in model["tasks"]:
        for budget in budgets:
            cands = [{**cam_mod.parse_key(r["config"]), "config": r["config"], "cost": r["tasks"][task]["cost"]}
                     for r in feasible if task in r["tasks"]]
            pick = cam_mod.plan(model, budget, task, cands)
            best = _best(test_half, task, budget, ("zs", "ms", "rag", "drag", "iterdrag"))
            empirical = _best(fit_half, task, budget, ("zs", "ms", "rag", "drag", "iterdrag"))
            if pick is None or best is None:
                continue
            held = {r["config"]: r["tasks"][task]["acc"] for r in feasible if task in r["tasks"]}
            rows.append({"task": task, "budget": budget, "picked": pick["config"], "picked_acc": held[pick["config"]],
                         "best": best["config"], "best_acc": best["tasks"][task]["acc"],
                         "gap": round(best["tasks"][task]["acc"] - held[pick["config"]], 4),
                         "fit_half_best": empirical["config"] if empirical else None,
                         "fit_half_best_acc": held.get(empirical["config"]) if empirical else None})
    gaps = [r["gap"] for r in rows]
    return {"fit_on": "questions:0.5", "questions_fit": sum(map(len, fit_ids.values())),
            "questions_test": sum(map(len, test_ids.values())), "fit": model["fit"], "a": model["a"],
            "b": model["b"], "c": model["c"], "rows": rows,
            "mean_gap": round(sum(gaps) / len(gaps), 4) if gaps else None,
            "max_gap": round(max(gaps), 4) if gaps else None}


def claims(records: list[dict], *, budgets: list[int], claim_budget: int = 4000, seed: int = 0,
           shift: tuple[float, float, float] = cam_mod.SHIFTS["paper"]) -> Iterator[dict]:
    configs = [r for r in records if r.get("type") == "rag.config"]
    tasks = sorted({t for r in configs for t in r["tasks"]})
    for task in tasks:
        yield make_record("rag.claim", 1, claim="iterdrag_vs_rag", **iterdrag_vs_rag(configs, claim_budget, task))
    yield make_record("rag.claim", 1, claim="cam_split",
                      **allocation(configs, "split:0.5", budgets, seed=seed, shift=shift))
    yield make_record("rag.claim", 1, claim="cam_question_split",
                      **question_split(configs, budgets, seed=seed, shift=shift))
    cheap = [b for b in budgets if b > 2000]
    yield make_record("rag.claim", 1, claim="cam_extrapolation",
                      **allocation(configs, "cost<=2k", cheap, seed=seed, shift=shift))
    for task in tasks:
        yield make_record("rag.claim", 1, claim="cam_leave_one_task_out",
                          **allocation(configs, f"task!={task}", budgets, seed=seed, eval_tasks=[task], shift=shift))
