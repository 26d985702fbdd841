"""Soft EM for a mixture of directed linear Laplace mechanisms, scored by BIC or ICL.

Component k has a mixing weight pi_k and a joint density over (x, y). For x -> y it is
p(x) * Laplace(y - slope*x - intercept; b_k), with the cause x uniform over the span [lo_k, hi_k] that the
component's own points cover (a small share, LEAK, spread over the column's whole range keeps every point's
density positive); y -> x swaps the roles. Both directions are densities on the same (x, y) plane, so their
likelihoods compare directly: the direction is the one with the higher weighted log-likelihood. A span taken from
the whole column instead would favour whichever column happens to be wider across all mechanisms.
Free parameters per component: slope, intercept, b, lo, hi; plus K-1 mixing weights: 6K - 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from toolkit.metacausal.lad import lad_line

MAX_ITERS = 60
REL_TOL = 1e-9
MIN_POINTS = 3.0  # a component whose expected count falls below this is dropped
LEAK = 1e-3
PARAMS_PER_COMPONENT = 5


@dataclass
class MixtureFit:
    params: np.ndarray  # K x 6 (slope, intercept, scale, direction, cause lo, cause hi) of the kept components
    weights: np.ndarray  # mixing weights
    loglik: float
    entropy: float  # -sum_i sum_k r_ik log r_ik of the responsibilities
    n: int

    @property
    def k(self) -> int:
        return int(self.params.shape[0])

    @property
    def n_params(self) -> int:
        return PARAMS_PER_COMPONENT * self.k + self.k - 1

    @property
    def bic(self) -> float:
        return -2.0 * self.loglik + self.n_params * math.log(self.n)

    @property
    def icl(self) -> float:
        return self.bic + 2.0 * self.entropy


@njit(cache=True, error_model="numpy")
def _log_cause(c, lo, hi, log_wide):
    inside = (1.0 - LEAK) / max(hi - lo, 1e-12) if lo <= c <= hi else 0.0
    return np.log(inside + LEAK * np.exp(log_wide))


@njit(cache=True, error_model="numpy")
def _log_density(x, y, params, log_pi, log_ux, log_uy, out):
    n = x.shape[0]
    for k in range(params.shape[0]):
        s, a, b, d, lo, hi = params[k, 0], params[k, 1], params[k, 2], params[k, 3], params[k, 4], params[k, 5]
        for i in range(n):
            if d == 0.0:
                r = y[i] - (s * x[i] + a)
                lu = _log_cause(x[i], lo, hi, log_ux)
            else:
                r = x[i] - (s * y[i] + a)
                lu = _log_cause(y[i], lo, hi, log_uy)
            out[i, k] = log_pi[k] + lu - abs(r) / b - np.log(2.0 * b)


@njit(cache=True, error_model="numpy")
def _responsibilities(logp, resp):
    """Normalise log densities into responsibilities; returns (log-likelihood, entropy)."""
    n, kk = logp.shape
    total = 0.0
    entropy = 0.0
    for i in range(n):
        m = -np.inf
        for k in range(kk):
            m = max(m, logp[i, k])
        z = 0.0
        for k in range(kk):
            z += np.exp(logp[i, k] - m)
        lse = m + np.log(z)
        total += lse
        for k in range(kk):
            resp[i, k] = np.exp(logp[i, k] - lse)
            if resp[i, k] > 0.0:
                entropy -= resp[i, k] * np.log(resp[i, k])
    return total, entropy


@njit(cache=True, error_model="numpy")
def _fit_component(cause, effect, w, wsum, slope0, log_wide):
    """LAD line, Laplace scale, the cause's span over the points the component mostly owns, and the weighted
    log-likelihood of the component's points in this direction."""
    s, a, _ = lad_line(cause, effect, w, slope0)
    acc = 0.0
    lo = np.inf
    hi = -np.inf
    for i in range(cause.shape[0]):
        acc += w[i] * abs(effect[i] - (s * cause[i] + a))
        if w[i] >= 0.5:
            lo = min(lo, cause[i])
            hi = max(hi, cause[i])
    if lo > hi:  # no point is mostly this component's: fall back to the weighted mean +- 2 sd
        m = 0.0
        for i in range(cause.shape[0]):
            m += w[i] * cause[i]
        m /= wsum
        v = 0.0
        for i in range(cause.shape[0]):
            v += w[i] * (cause[i] - m) ** 2
        sd = np.sqrt(v / wsum)
        lo, hi = m - 2 * sd, m + 2 * sd
    b = max(acc / wsum, 1e-8)
    ll = 0.0
    for i in range(cause.shape[0]):
        if w[i] > 0.0:
            ll += w[i] * _log_cause(cause[i], lo, hi, log_wide)
    ll += -wsum * np.log(2.0 * b) - acc / b
    return s, a, b, lo, hi, ll


@njit(cache=True, error_model="numpy")
def soft_em(x, y, params, pi, log_ux, log_uy, max_iters, rel_tol):
    """Soft EM from `params` (K x 6) and `pi`, both updated in place; returns (log-likelihood, entropy)."""
    n = x.shape[0]
    kk = params.shape[0]
    logp = np.empty((n, kk))
    resp = np.empty((n, kk))
    w = np.empty(n)
    log_pi = np.empty(kk)
    last = -np.inf
    ll = -np.inf
    ent = 0.0
    for it in range(max_iters + 1):
        for k in range(kk):
            log_pi[k] = np.log(pi[k]) if pi[k] > 0.0 else -np.inf
        _log_density(x, y, params, log_pi, log_ux, log_uy, logp)
        ll, ent = _responsibilities(logp, resp)
        if it == max_iters or abs(ll - last) <= rel_tol * abs(ll):
            break
        last = ll
        for k in range(kk):
            wsum = 0.0
            for i in range(n):
                w[i] = resp[i, k]
                wsum += w[i]
            pi[k] = wsum / n
            if wsum < MIN_POINTS:
                pi[k] = 0.0
                continue
            s0 = params[k, 0]
            back = 1.0 / s0 if s0 != 0.0 else 0.0
            fwd = _fit_component(x, y, w, wsum, s0 if params[k, 3] == 0.0 else back, log_ux)
            bwd = _fit_component(y, x, w, wsum, s0 if params[k, 3] == 1.0 else back, log_uy)
            best = fwd if fwd[5] >= bwd[5] else bwd
            params[k, 0] = best[0]
            params[k, 1] = best[1]
            params[k, 2] = best[2]
            params[k, 3] = 0.0 if fwd[5] >= bwd[5] else 1.0
            params[k, 4] = best[3]
            params[k, 5] = best[4]
        total = 0.0
        for k in range(kk):
            total += pi[k]
        for k in range(kk):
            pi[k] /= total
    return ll, ent


def _log_uniform(v: np.ndarray) -> float:
    return -math.log(max(float(np.max(v) - np.min(v)), 1e-12))


def _spans(x: np.ndarray, y: np.ndarray, params: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each mechanism's cause span over the points labelled with it."""
    spans = np.empty((params.shape[0], 2))
    for k in range(params.shape[0]):
        cause = (x if params[k, 3] == 0 else y)[labels == k]
        if cause.size == 0:
            cause = x if params[k, 3] == 0 else y
        spans[k] = cause.min(), cause.max()
    return spans


def fit_mixture(x: np.ndarray, y: np.ndarray, start: np.ndarray, labels: np.ndarray) -> MixtureFit:
    """Polish a hard-EM solution (K x 4 mechanisms, each point's label) into a mixture; drop empty components."""
    x = np.ascontiguousarray(x, np.float64)
    y = np.ascontiguousarray(y, np.float64)
    counts = np.bincount(labels, minlength=start.shape[0])
    keep = counts >= MIN_POINTS
    if not keep.any():
        keep = counts == counts.max()
    params = np.column_stack([start[:, :4], _spans(x, y, start, labels)])[keep].copy()
    pi = counts[keep].astype(np.float64) / counts[keep].sum()
    ll, ent = soft_em(x, y, params, pi, _log_uniform(x), _log_uniform(y), MAX_ITERS, REL_TOL)
    alive = pi > 0
    if not alive.all():  # refit without the dropped components so the likelihood is that of the kept model
        kept = params[alive]
        resp = responsibilities(x, y, MixtureFit(kept, pi[alive] / pi[alive].sum(), ll, ent, len(x)))
        return fit_mixture(x, y, kept[:, :4], resp.argmax(axis=1))
    return MixtureFit(params, pi, float(ll), float(ent), len(x))


def responsibilities(x: np.ndarray, y: np.ndarray, fit: MixtureFit) -> np.ndarray:
    """N x K posterior component probabilities of the points under a fitted mixture."""
    x = np.ascontiguousarray(x, np.float64)
    y = np.ascontiguousarray(y, np.float64)
    logp = np.empty((x.shape[0], fit.k))
    with np.errstate(divide="ignore"):
        log_pi = np.log(fit.weights)
    _log_density(x, y, fit.params, log_pi, _log_uniform(x), _log_uniform(y), logp)
    resp = np.empty_like(logp)
    _responsibilities(logp, resp)
    return resp
