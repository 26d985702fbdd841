"""The records this system writes: samples, fits, per-sample assignments."""

from __future__ import annotations

import numpy as np

from toolkit.core.records import make_record
from toolkit.metacausal.inference import Inference
from toolkit.metacausal.select import AD_RULES

SAMPLE = "metacausal.sample"
FIT = "metacausal.fit"
ASSIGN = "metacausal.assign"
GRAPH = "metacausal.graph"
DIRECTIONS = ("x->y", "y->x")
MIN_SLOPE = 0.05


def mechanism_type(slope: float, direction: int, min_slope: float = MIN_SLOPE) -> dict:
    """Direction and sign; a slope below min_slope in magnitude means no dependence."""
    if abs(slope) < min_slope:
        return {"direction": "none", "sign": "0"}
    return {"direction": DIRECTIONS[int(direction)], "sign": "+" if slope > 0 else "-"}


def sample_records(x, y, t, environment, state, mechanism, system: str) -> list[dict]:
    return [make_record(SAMPLE, 1, system=system, x=float(x[i]), y=float(y[i]), t=float(t[i]),
                        environment=None if environment is None else float(environment[i]),
                        state=state[i], mechanism=int(mechanism[i])) for i in range(len(x))]


def _round(v: float) -> float:
    return float(round(float(v), 8))


def chosen_params(inf: Inference, method: str) -> tuple[np.ndarray, np.ndarray]:
    """(K-hat x 4 mechanisms, their weights) of the model `method` chose; empty when it chose none."""
    index, _ = inf.choice[method]
    if index is None:
        return np.empty((0, 4)), np.empty(0)
    if method in AD_RULES:
        f = inf.fits[index]
        params = np.column_stack([f.slope, f.intercept, f.scale, f.direction])
        return params[f.active], f.counts[f.active] / f.counts.sum()
    m = inf.mixtures[index]
    return m.params[:, :4], m.weights


def chosen_mechanisms(inf: Inference, method: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """chosen_params plus the N x K-hat responsibilities of the samples."""
    from toolkit.metacausal.em import assign
    from toolkit.metacausal.mixture import responsibilities

    params, weights = chosen_params(inf, method)
    index, _ = inf.choice[method]
    if index is None:
        return params, weights, np.empty((len(inf.x), 0))
    if method in AD_RULES:
        f = inf.fits[index]
        _, all_weights, _ = assign(inf.x, inf.y, np.column_stack([f.slope, f.intercept, f.scale, f.direction]))
        resp = all_weights[:, f.active]
        return params, weights, resp / np.maximum(resp.sum(axis=1, keepdims=True), 1e-300)
    return params, weights, responsibilities(inf.x, inf.y, inf.mixtures[index])


def fit_records(inf: Inference, method: str, meta: dict, t: np.ndarray, environment,
                pair: str | None = None) -> list[dict]:
    """The fit and one assign record per sample; with `pair` (infer --pairs) both carry it."""
    tag = {} if pair is None else {"pair": pair}
    params, weights, resp = chosen_mechanisms(inf, method)
    mechanisms = []
    for j, (p, w) in enumerate(zip(params, weights, strict=True)):
        mechanisms.append({"id": j, "slope": _round(p[0]), "intercept": _round(p[1]), "scale": _round(p[2]),
                           "direction": DIRECTIONS[int(p[3])], "weight": _round(w),
                           "type": mechanism_type(p[0], int(p[3]))})
    scores = []
    for k, (f, c, m) in enumerate(zip(inf.fits, inf.checks, inf.mixtures, strict=True), start=1):
        scores.append({"k": k, "active": int(f.active.sum()), "hard_score": _round(f.score),
                       "ad_accepted": c.accepted, "ad_mean_a2": _round(c.mean_a2), "mixture_k": m.k,
                       "loglik": _round(m.loglik), "bic": _round(m.bic), "icl": _round(m.icl)})
    out = [make_record(FIT, 1, k_hat=int(len(params)), select=method, mechanisms=mechanisms, scores=scores, **tag,
                       **meta)]
    labels = resp.argmax(axis=1) if resp.shape[1] else None
    for i in range(len(inf.x)):
        out.append(make_record(ASSIGN, 1, **tag, index=i, t=float(t[i]),
                               environment=None if environment is None else float(environment[i]),
                               state=None if labels is None else int(labels[i]),
                               responsibilities=[_round(v) for v in resp[i]]))
    return out
