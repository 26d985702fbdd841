"""The computation allocation model (Yue et al., Sec. 5): predict performance from (k, m, n).

    logit P(theta) = (a + b * i)^T log(theta + eps) + c,   theta = (k, m, n),  i = (i_doc, i_shot, 0)

as in the paper's Eq. 2 and Appendix H: every element of theta is shifted by eps = 0.01 so that 0-document
and 0-shot configurations have a finite log (shift `paper`). The earlier form log(1 + k), log(1 + m), log n
(shift `one`) is kept for comparison and for model files written before (they carry no `shift` field).
i_doc = P(1,0,1) - P(0,0,1) and i_shot = P(0,1,1) - P(0,0,1) per task (how much one document / one
demonstration helps it); a, b, c are shared by the tasks and b_3 = 0 (six free parameters, as in the paper).
n is the number of generation iterations as in the paper: 1 for zs, ms, rag and drag (one call), the
follow-up limit n for IterDRAG (so IterDRAG with n = 1 shares DRAG's theta, as in the paper's model). P is
clipped to [1/2N, 1 - 1/2N] and the fit is least squares in logit space (`robust`: soft_l1). With one task,
b is collinear with a and dropped.

Two differences from the paper remain, both documented in assets/rag/README.md: the paper computes i per
strategy and task (IterDRAG's from IterDRAG runs with k = 0 and m = 0 or 1, which this sweep cannot run:
sub-queries with nothing retrieved are not a configuration here), so every method shares the one-call
anchors; and the paper's sigma^-1 is a sigmoid fitted to z-scored metrics, where this fit uses the plain logit
of the accuracy.
"""

from __future__ import annotations

import math
import random

from toolkit.core import console
from toolkit.core.errors import InputError
from toolkit.core.records import make_record

ANCHORS = {"zero": (0, 0, 1), "doc": (1, 0, 1), "shot": (0, 1, 1)}
# what is added to (k, m, n) before the log: the paper's eps = 0.01, or the earlier (1, 1, 0)
SHIFTS = {"paper": (0.01, 0.01, 0.01), "one": (1.0, 1.0, 0.0)}


def theta(rec: dict) -> tuple[int, int, int]:
    return rec["k"], rec["m"], rec["n"] if rec["method"] == "iterdrag" else 1


def features(t: tuple[int, int, int], shift: tuple[float, float, float] = SHIFTS["paper"]) -> list[float]:
    return [math.log(v + s) for v, s in zip(t, shift, strict=True)]


def shift_of(cam: dict) -> tuple[float, float, float]:
    """The shift a model was fitted with (files without the field were fitted with log(1 + k), log(1 + m))."""
    return tuple(cam.get("shift", SHIFTS["one"]))


def parse_shift(name: str) -> tuple[float, float, float]:
    if name not in SHIFTS:
        raise InputError(f"--theta-shift {name}: expected one of {', '.join(SHIFTS)}")
    return SHIFTS[name]


def _cost_features(t: tuple[int, int, int]) -> list[float]:
    """The cost model's inputs (its own fit, independent of the allocation model's shift)."""
    return [math.log1p(t[0]), math.log1p(t[1]), math.log(t[2]), 1.0]


def _logit(p: float, n: int) -> float:
    eps = 1.0 / (2 * max(n, 1))
    p = min(max(p, eps), 1 - eps)
    return math.log(p / (1 - p))


def points(records: list[dict], metric: str = "acc") -> list[dict]:
    """One point per (feasible configuration, task)."""
    out = []
    for r in records:
        if not r.get("feasible", True):
            continue
        for task, row in r.get("tasks", {}).items():
            out.append({"config": r["config"], "task": task, "theta": theta(r), "p": row[metric], "n": row["questions"],
                        "cost": row["cost"], "method": r["method"], "k": r["k"], "m": r["m"], "nf": r["n"]})
    return out


def informativeness(pts: list[dict]) -> dict[str, tuple[float, float]]:
    """Per task (i_doc, i_shot) from its anchor configurations; a task without all three is an error."""
    by = {(p["task"], p["theta"]): p["p"] for p in pts}
    out = {}
    for task in sorted({p["task"] for p in pts}):
        missing = [name for name, t in ANCHORS.items() if (task, t) not in by]
        if missing:
            want = ", ".join(f"{name} {ANCHORS[name]}" for name in missing)
            raise InputError(f"fit: task '{task}' lacks the anchor configuration(s) {want} (k, m, n): "
                             "sweep zs, rag k=1 and ms m=1")
        zero = by[(task, ANCHORS["zero"])]
        out[task] = (by[(task, ANCHORS["doc"])] - zero, by[(task, ANCHORS["shot"])] - zero)
    return out


def fit(pts: list[dict], info: dict[str, tuple[float, float]], *, robust: bool = False,
        shift: tuple[float, float, float] = SHIFTS["paper"]) -> dict:
    import numpy as np
    from scipy.optimize import least_squares

    usable = [p for p in pts if 0 < p["p"] < 1]
    if len(usable) < 7:
        raise InputError(f"fit: {len(usable)} configuration(s) with 0 < P < 1; at least 7 are needed")
    tasks = sorted({p["task"] for p in pts})
    use_b = len(tasks) > 1 and len({info[t] for t in tasks}) > 1
    if not use_b:
        console.warn("fit: one task (or identical informativeness): b is collinear with a and is dropped")
    x = np.array([features(p["theta"], shift) for p in pts])
    iv = np.array([[*info[p["task"]], 0.0] for p in pts])
    y = np.array([_logit(p["p"], p["n"]) for p in pts])

    def model(params, x=x, iv=iv):
        a, b, c = params[:3], np.array([*params[3:5], 0.0]) if use_b else np.zeros(3), params[5]
        return ((a + b * iv) * x).sum(1) + c

    res = least_squares(lambda w: model(w) - y, np.zeros(6), loss="soft_l1" if robust else "linear")
    w = res.x
    return {"a": [float(v) for v in w[:3]], "b": [float(w[3]), float(w[4]), 0.0] if use_b else [0.0, 0.0, 0.0],
            "c": float(w[5]), "info": {t: list(v) for t, v in info.items()}, "robust": robust,
            "tasks": tasks, "shift": list(shift)}


def predict(cam: dict, t: tuple[int, int, int], task: str) -> float:
    i = [*cam["info"][task], 0.0]
    f = features(t, shift_of(cam))
    z = sum((a + b * iv) * x for a, b, iv, x in zip(cam["a"], cam["b"], i, f, strict=True)) + cam["c"]
    return 1.0 / (1.0 + math.exp(-z))


def quality(cam: dict, pts: list[dict]) -> dict:
    """R2 and MSE in probability space over the points."""
    if not pts:
        return {"points": 0}
    pred = [predict(cam, p["theta"], p["task"]) for p in pts]
    obs = [p["p"] for p in pts]
    mean = sum(obs) / len(obs)
    sse = sum((a - b) ** 2 for a, b in zip(pred, obs, strict=True))
    sst = sum((b - mean) ** 2 for b in obs)
    return {"points": len(pts), "mse": round(sse / len(pts), 5), "r2": round(1 - sse / sst, 4) if sst else None}


def select(pts: list[dict], spec: str, seed: int = 0) -> tuple[list[dict], list[dict]]:
    """(fit points, held-out points) for `split:F`, `cost<=L` or `task!=T` (anchors always fit)."""
    from toolkit.rag.sweep import parse_budget

    anchors = set(ANCHORS.values())
    if spec.startswith("split:"):
        try:
            frac = float(spec[6:])
        except ValueError:
            raise InputError(f"--fit-on {spec}: expected split:FRACTION") from None
        if not 0 < frac <= 1:
            raise InputError(f"--fit-on {spec}: fraction must be in (0, 1]")
        configs = sorted({p["config"] for p in pts})
        random.Random(seed).shuffle(configs)
        chosen = set(configs[: max(1, round(frac * len(configs)))])
        keep = lambda p: p["config"] in chosen or p["theta"] in anchors  # noqa: E731
    elif spec.startswith("cost<="):
        limit = parse_budget(spec[6:])
        keep = lambda p: p["cost"] <= limit or p["theta"] in anchors  # noqa: E731
    elif spec.startswith("task!="):
        task = spec[6:]
        if task not in {p["task"] for p in pts}:
            raise InputError(f"--fit-on {spec}: no task '{task}' in the sweep")
        keep = lambda p: p["task"] != task  # noqa: E731
    else:
        raise InputError(f"--fit-on {spec}: expected split:F, cost<=L or task!=T")
    return [p for p in pts if keep(p)], [p for p in pts if not keep(p)]


def fit_records(records: list[dict], spec: str = "split:1", *, seed: int = 0, robust: bool = False,
                metric: str = "acc", shift: tuple[float, float, float] = SHIFTS["paper"]) -> dict:
    pts = points(records, metric)
    info = informativeness(pts)
    train, held = select(pts, spec, seed)
    cam = fit(train, info, robust=robust, shift=shift)
    cam.update(fit_on=spec, seed=seed, metric=metric, fit=quality(cam, train), heldout=quality(cam, held),
               cost_model=cost_model(pts), configs=sorted({p["config"] for p in pts}),
               costs=_costs(pts), measured=_measured(pts))
    return make_record("rag.cam", 1, **cam)


def _costs(pts: list[dict]) -> dict:
    out: dict = {}
    for p in pts:
        out.setdefault(p["config"], {})[p["task"]] = p["cost"]
    return out


def _measured(pts: list[dict]) -> dict:
    """The sweep's measured score per configuration and task, to check a plan against."""
    out: dict = {}
    for p in pts:
        out.setdefault(p["config"], {})[p["task"]] = p["p"]
    return out


def check_plan(cam: dict, pick: dict | None, budget: float, task: str) -> dict:
    """The pick's measured score and the best measured configuration within the budget (sweep configurations
    with measured costs), with the gap between them; empty for a model fitted without measured scores."""
    measured = cam.get("measured") or {}
    costs = cam.get("costs") or {}
    rows = [(acc[task], -costs[key][task], key) for key, acc in measured.items()
            if task in acc and costs.get(key, {}).get(task) is not None and costs[key][task] <= budget]
    if not rows:
        return {}
    acc, _, key = max(rows)
    out = {"best_measured": key, "best_measured_score": acc}
    if pick is not None and task in measured.get(pick["config"], {}):
        out["measured_score"] = measured[pick["config"]][task]
        out["gap"] = round(acc - out["measured_score"], 4)
    return out


def cost_model(pts: list[dict]) -> dict:
    """log cost ~ per-method linear model in log theta, for configurations the sweep did not measure."""
    import numpy as np

    out = {}
    for method in sorted({p["method"] for p in pts}):
        rows = [p for p in pts if p["method"] == method and p["cost"] > 0]
        if not rows:
            continue
        x = np.array([_cost_features(p["theta"]) for p in rows])
        y = np.log([p["cost"] for p in rows])
        w, *_ = np.linalg.lstsq(x, y, rcond=None)
        out[method] = [float(v) for v in w]
    return out


def estimate_cost(cam: dict, method: str, t: tuple[int, int, int]) -> float | None:
    w = cam.get("cost_model", {}).get(method)
    if w is None:
        return None
    return float(math.exp(sum(a * b for a, b in zip(w, _cost_features(t), strict=True))))


def plan(cam: dict, budget: int, task: str, candidates: list[dict]) -> dict | None:
    """Argmax predicted P among candidates ({method, k, m, n, cost or None}) with cost <= budget."""
    if task not in cam["info"]:
        raise InputError(f"plan: task '{task}' not in the model (tasks: {', '.join(cam['info'])})")
    best = None
    for c in candidates:
        t = theta(c)
        cost, estimated = c.get("cost"), False
        if cost is None:
            cost, estimated = estimate_cost(cam, c["method"], t), True
        if cost is None or cost > budget:
            continue
        p = predict(cam, t, task)
        if best is None or p > best["predicted"]:
            best = {**c, "cost": round(cost, 1), "cost_estimated": estimated, "predicted": round(p, 4)}
    return best


def load_cam(path) -> dict:
    import json
    from pathlib import Path

    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file")
    try:
        cam = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{p}: malformed JSON ({exc.msg})") from None
    for f in ("a", "b", "c", "info"):
        if f not in cam:
            raise InputError(f"{p}: field '{f}' missing (not a rag.cam file)")
    return cam


def parse_key(key: str) -> dict:
    method, *parts = key.split(":")
    vals = dict(p.split("=") for p in parts)
    return {"method": method, "k": int(vals["k"]), "m": int(vals["m"]), "n": int(vals["n"])}


def plan_candidates(cam: dict, task: str, extra=None) -> list[dict]:
    """The sweep's configurations with their measured cost for `task`, plus extra grid ones (cost unknown)."""
    out = [{**parse_key(key), "config": key, "cost": cam.get("costs", {}).get(key, {}).get(task)}
           for key in cam.get("configs", [])]
    if extra:
        from toolkit.rag.sweep import configs

        known = {c["config"] for c in out}
        for cfg in configs(*extra):
            if cfg.key() not in known:
                out.append({"method": cfg.method, "k": cfg.k, "m": cfg.m, "n": cfg.n, "config": cfg.key(),
                            "cost": None})
    return out
