"""Kernel models on compositionally structured representations and the theory's predictions.

Theorem (conjunction-wise additivity): kernel ridge regression with a compositionally
structured kernel K = sum_S w_S [x_S = x'_S] computes f(x) = sum_S g_S(x_S) where
g_S(c) = w_S * sum_{i: x_i,S = c} alpha_i — so g_S vanishes on every conjunction not seen in
training. `kernel_fit` solves the dual problem; `converged_function` solves the same problem in
the primal space of seen conjunctions (a different computation), and both must agree to
numerical precision. With ridge -> 0 the primal solution is the minimum-norm interpolant
(pseudo-inverse), the function the kernel model converges to.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from toolkit.compgen import kernels
from toolkit.compgen.representations import conjunction_weights, popcount
from toolkit.compgen.tasks import Task
from toolkit.core.errors import InputError


@dataclass
class Fit:
    pred: np.ndarray  # predictions on every input of the task grid
    g: np.ndarray  # flat conjunction values g_S(c)
    offsets: np.ndarray


def _arrays(task: Task):
    sizes = np.array(task.sizes, dtype=np.int64)
    return sizes, kernels.conjunction_layout(task.sizes)


def kernel_fit(task: Task, sims: np.ndarray, ridge: float = 0.0) -> Fit:
    """Dual kernel ridge regression on the training split; predictions on the whole grid."""
    if sims.shape != (2**task.components,):
        raise InputError(f"similarity table has {sims.shape[0]} entries, expected {2**task.components}")
    if ridge < 0:
        raise InputError(f"--ridge {ridge}: must be >= 0")
    xtr, ytr = task.x[task.train], task.y[task.train]
    k = kernels.kernel_matrix(xtr, xtr, sims)
    system = k + ridge * np.eye(len(xtr))
    if ridge == 0:
        rank = np.linalg.matrix_rank(system, tol=1e-10 * max(1.0, np.abs(system).max()))
        if rank < len(xtr):
            raise InputError(f"the kernel matrix is singular (rank {rank} < {len(xtr)} training inputs); "
                             "pass --ridge > 0 (or use `reason compgen theory` for the ridgeless limit)")
    alpha = np.linalg.solve(system, ytr)
    pred = kernels.kernel_matrix(task.x, xtr, sims) @ alpha
    sizes, offsets = _arrays(task)
    g = kernels.decompose(xtr, alpha, conjunction_weights(sims), sizes, offsets)
    return Fit(pred, g, offsets)


def conjunction_features(x: np.ndarray, task: Task, columns: np.ndarray, scale: np.ndarray | None = None) -> np.ndarray:
    """Dense one-hot features of the given flat conjunction slots for inputs x."""
    sizes, offsets = _arrays(task)
    index = {int(c): j for j, c in enumerate(columns)}
    phi = np.zeros((len(x), len(columns)))
    for s in range(2**task.components):
        for i, row in enumerate(x):
            j = index.get(int(offsets[s] + kernels.conjunction_code(row, s, sizes)))
            if j is not None:
                phi[i, j] = 1.0 if scale is None else scale[j]
    return phi


def slot_subsets(offsets: np.ndarray) -> np.ndarray:
    """The subset S owning each flat conjunction slot."""
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def converged_function(task: Task, sims: np.ndarray, ridge: float = 0.0) -> Fit:
    """The primal solution over seen conjunctions: min sum_S ||g_S||^2 / w_S + data term."""
    w = conjunction_weights(sims)
    if (w < -1e-12).any():
        bad = [int(s) for s in np.flatnonzero(w < -1e-12)]
        raise InputError(f"this representation is not compositionally structured: negative conjunction weight(s) "
                         f"for subsets {bad}")
    sizes, offsets = _arrays(task)
    xtr, ytr = task.x[task.train], task.y[task.train]
    seen = kernels.seen_conjunctions(xtr, sizes, offsets)
    owner = slot_subsets(offsets)
    columns = np.flatnonzero(seen & (w[owner] > 1e-15))
    scale = np.sqrt(np.clip(w[owner[columns]], 0, None))
    phi = conjunction_features(xtr, task, columns, scale)
    if ridge > 0:
        beta = np.linalg.solve(phi.T @ phi + ridge * np.eye(len(columns)), phi.T @ ytr)
    else:
        beta = np.linalg.pinv(phi, rcond=1e-12) @ ytr
    g = np.zeros(offsets[-1])
    g[columns] = scale * beta
    return Fit(kernels.evaluate(task.x, g, sizes, offsets), g, offsets)


@dataclass
class Learnability:
    learnable: bool
    order: int | None  # smallest conjunction order that represents the target on the whole grid
    residual_by_order: list[float]


def learnability(task: Task, tol: float = 1e-8) -> Learnability:
    """Is the target on the whole grid a sum of values of conjunctions seen in training?

    If so, a compositionally structured kernel with positive weights on those orders can
    generalize to the held-out combinations; if not, no such kernel can.
    """
    sizes, offsets = _arrays(task)
    seen = kernels.seen_conjunctions(task.x[task.train], sizes, offsets)
    owner = slot_subsets(offsets)
    order_of = np.array([popcount(int(s)) for s in range(2**task.components)])
    residuals, first = [], None
    for k in range(task.components + 1):
        columns = np.flatnonzero(seen & (order_of[owner] <= k))
        phi = conjunction_features(task.x, task, columns)
        beta = np.linalg.lstsq(phi, task.y, rcond=None)[0]
        rms = float(np.sqrt(np.mean((phi @ beta - task.y) ** 2)))
        residuals.append(rms)
        if first is None and rms < tol:
            first = k
    return Learnability(first is not None, first, residuals)


def contributions(task: Task, fit: Fit) -> np.ndarray:
    """(2^C, N): the value each subset S contributes to the prediction at each input."""
    sizes, offsets = _arrays(task)
    out = np.zeros((2**task.components, len(task.x)))
    for s in range(2**task.components):
        for i, row in enumerate(task.x):
            out[s, i] = fit.g[offsets[s] + kernels.conjunction_code(row, s, sizes)]
    return out


def memorization_leak(task: Task, fit: Fit) -> dict[str, float]:
    """How much of the training fit the full-combination term carries.

    The full conjunction of a held-out input is never seen in training, so that term vanishes on
    every held-out input: whatever part of the training targets it absorbs (memorization) is
    missing from test predictions, which shrink toward the additive part. Reported as the share
    of the training predictions' energy carried by that term and the slope of held-out predictions
    on held-out targets (1 = no leak, 0 = pure memorization).
    """
    full = 2**task.components - 1
    memorized = contributions(task, fit)[full, task.train]
    train_pred = fit.pred[task.train]
    out = {"memorized_share": float(np.sum(memorized**2) / max(np.sum(train_pred**2), 1e-300))}
    test = ~task.train
    if test.any():
        yt, pt = task.y[test], fit.pred[test]
        centred = yt - yt.mean()
        denom = float(centred @ centred)
        out["test_slope"] = float(centred @ (pt - pt.mean()) / denom) if denom > 0 else float("nan")
    return out


def shortcut_bias(task: Task, fit: Fit, sims: np.ndarray, ridge: float) -> dict[str, float]:
    """Where the biased split moves the decomposition, relative to training on every combination.

    `shift[S]` is the RMS change, on held-out inputs, of subset S's contribution between the
    given split and the balanced one (all combinations trained). For context dependence the
    bias toward the irrelevant feature is also given as the slope of held-out predictions on the
    irrelevant feature's response of the change in held-out predictions (0 = unbiased, > 0 =
    pulled toward the shortcut).
    """
    balanced = Task(task.name, task.x, task.y, np.ones(len(task.x), bool), task.sizes, task.params, task.extra)
    ref = converged_function(balanced, sims, ridge)
    test = ~task.train
    out: dict[str, float] = {}
    if not test.any():
        return out
    diff = contributions(task, fit)[:, test] - contributions(balanced, ref)[:, test]
    for s in range(1, 2**task.components):
        out[f"shift_{subset_name(s, task.components)}"] = float(np.sqrt(np.mean(diff[s] ** 2)))
    if "irrelevant_response" in task.extra:
        r = task.extra["irrelevant_response"][test]
        moved = fit.pred[test] - ref.pred[test]
        out["irrelevant_slope"] = float(r @ moved / max(r @ r, 1e-300))
    return out


def subset_name(s: int, components: int) -> str:
    return "+".join(f"c{k}" for k in range(components) if s >> k & 1) or "const"


def errors(task: Task, pred: np.ndarray) -> dict[str, float]:
    out = {}
    for split, mask in (("train", task.train), ("test", ~task.train)):
        if mask.any():
            out[f"{split}_mse"] = float(np.mean((pred[mask] - task.y[mask]) ** 2))
            if set(np.unique(task.y)) <= {-1.0, 1.0}:
                out[f"{split}_accuracy"] = float(np.mean(np.sign(pred[mask]) == task.y[mask]))
    if "same_class" in task.extra and (~task.train).any():
        test = ~task.train
        same = task.extra["same_class"][test] > 0
        if same.any() and (~same).any():
            out["test_separation"] = float(pred[test][same].mean() - pred[test][~same].mean())
    return out
