"""Numba kernels against plain numpy references."""

import numpy as np

from toolkit.compgen import build, conjunction_weights, kernels, sims_for
from toolkit.compgen.tasks import grid


def reference_kernel(xa, xb, sims):
    eq = xa[:, None, :] == xb[None, :, :]
    return sims[(eq * (1 << np.arange(xa.shape[1]))).sum(-1)]


def reference_decomposition(x_train, alpha, weights):
    """{(S, conjunction tuple): g_S} by a dictionary, straight from the definition."""
    out = {}
    c = x_train.shape[1]
    for s in range(2**c):
        for xi, ai in zip(x_train, alpha, strict=True):
            key = (s, tuple(int(xi[k]) for k in range(c) if s >> k & 1))
            out[key] = out.get(key, 0.0) + weights[s] * ai
    return out


def test_kernel_matrix_matches_numpy():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, size=(60, 3))
    sims = rng.random(8)
    assert np.array_equal(kernels.kernel_matrix(x, x[:17], sims), reference_kernel(x, x[:17], sims))


def test_moebius_weights_rebuild_the_kernel():
    for rep in ("disentangled", "conjunctive", "mixed", "relu", "rbf"):
        sims = sims_for(rep, 3)
        w = conjunction_weights(sims)
        for p in range(8):
            assert abs(sum(w[s] for s in range(8) if s & p == s) - sims[p]) < 1e-12
    assert np.allclose(conjunction_weights(sims_for("disentangled", 2)), [0, 0.5, 0.5, 0])
    assert np.allclose(conjunction_weights(sims_for("conjunctive", 2)), [0, 0, 0, 1])


def test_decompose_and_evaluate_match_definition():
    rng = np.random.default_rng(1)
    task = build("context-dependence", variant=2)
    xtr = task.x[task.train]
    alpha = rng.normal(size=len(xtr))
    w = conjunction_weights(sims_for("relu", 3))
    sizes = np.array(task.sizes)
    offsets = kernels.conjunction_layout(task.sizes)
    g = kernels.decompose(xtr, alpha, w, sizes, offsets)
    ref = reference_decomposition(xtr, alpha, w)
    for (s, conj), value in ref.items():
        code, radix = 0, 1
        comps = [k for k in range(3) if s >> k & 1]
        for k, v in zip(comps, conj, strict=True):
            code += v * radix
            radix *= sizes[k]
        assert abs(g[offsets[s] + code] - value) < 1e-12
    # f(x) = sum_S g_S(x_S) equals sum_i alpha_i K(x, x_i)
    f = kernels.evaluate(task.x, g, sizes, offsets)
    assert np.allclose(f, reference_kernel(task.x, xtr, sims_for("relu", 3)) @ alpha, atol=1e-12)


def test_seen_conjunctions_marks_only_training_ones():
    x = grid((3, 3))
    train = x[x[:, 0] != 2]
    offsets = kernels.conjunction_layout((3, 3))
    seen = kernels.seen_conjunctions(train, np.array([3, 3]), offsets)
    assert seen[offsets[1]: offsets[2]].tolist() == [True, True, False]  # component 0 values
    assert seen[offsets[2]: offsets[3]].all()  # component 1 values all seen
    assert seen[offsets[3]: offsets[4]].sum() == 6
