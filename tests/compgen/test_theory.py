"""The paper's claims on the kernel models, with numbers."""

import numpy as np
import pytest

from toolkit.compgen import (
    build,
    converged_function,
    errors,
    kernel_fit,
    learnability,
    memorization_leak,
    shortcut_bias,
    sims_for,
)
from toolkit.core.errors import InputError


@pytest.mark.parametrize("split", ["comps", "dispersed"])
def test_addition_is_learned_by_disentangled_kernel(split):
    task = build("addition", split=split)
    fit = kernel_fit(task, sims_for("disentangled", 2), ridge=1e-8)
    assert errors(task, fit.pred)["test_mse"] < 1e-6
    assert learnability(task).order == 1


def test_transitive_equivalence_fails_exactly_as_predicted():
    task = build("transitive-equivalence")
    learn = learnability(task)
    assert not learn.learnable and learn.residual_by_order[-1] > 0.1
    for rep in ("disentangled", "mixed", "relu", "rbf"):
        fit = kernel_fit(task, sims_for(rep, 2), ridge=1e-6)
        err = errors(task, fit.pred)
        # held-out pairs get the same output whether or not the items share a class
        assert abs(err["test_separation"]) < 1e-6
        assert err["test_accuracy"] == pytest.approx(24 / 36)  # = always answering "different"


@pytest.mark.parametrize("task_name, options", [("addition", {"split": "dispersed"}),
                                                ("context-dependence", {"variant": 1}),
                                                ("transitive-equivalence", {})])
@pytest.mark.parametrize("rep", ["mixed", "relu", "rbf"])
def test_theory_matches_kernel_regression(task_name, options, rep):
    task = build(task_name, **options)
    sims = sims_for(rep, task.components)
    dual = kernel_fit(task, sims, ridge=1e-3)
    primal = converged_function(task, sims, ridge=1e-3)
    assert np.max(np.abs(dual.pred - primal.pred)) < 1e-9
    assert np.max(np.abs(dual.g - primal.g)) < 1e-9
    # conjunction-wise additivity: the full-combination term is zero on every held-out input
    ridgeless = converged_function(task, sims, ridge=0.0)
    assert np.max(np.abs(kernel_fit(task, sims, ridge=1e-10).pred - ridgeless.pred)) < 1e-5


def test_memorization_leak_grows_with_conjunctive_weight():
    task = build("addition", split="dispersed")
    slopes, shares = [], []
    for conj in (0.0, 0.25, 0.5, 0.75):
        # similarity by shared components: 0 -> 0, 1 -> (1-conj)/2, 2 -> 1
        sims = sims_for(f"sims:0,{(1 - conj) / 2},1", 2)
        fit = kernel_fit(task, sims, ridge=1e-8)
        leak = memorization_leak(task, fit)
        slopes.append(leak["test_slope"])
        shares.append(leak["memorized_share"])
    assert slopes[0] == pytest.approx(1.0, abs=1e-6) and shares[0] == pytest.approx(0.0, abs=1e-9)
    assert all(a > b for a, b in zip(slopes, slopes[1:], strict=False))  # held-out outputs shrink
    assert all(a < b for a, b in zip(shares, shares[1:], strict=False))


def test_shortcut_bias_points_to_irrelevant_feature_and_grows_with_bias():
    sims = sims_for("relu", 3)
    slopes = []
    for variant in (3, 2, 1):  # more conflicting combinations left out
        task = build("context-dependence", variant=variant)
        fit = converged_function(task, sims, ridge=1e-8)
        slopes.append(shortcut_bias(task, fit, sims, 1e-8)["irrelevant_slope"])
    assert all(s > 0 for s in slopes)
    assert slopes[0] < slopes[1] < slopes[2]


def test_context_dependence_needs_pairwise_conjunctions():
    task = build("context-dependence", variant=3)
    assert learnability(task).order == 2
    additive = errors(task, kernel_fit(task, sims_for("disentangled", 3), ridge=1e-6).pred)
    pairwise = errors(task, kernel_fit(task, sims_for("relu", 3), ridge=1e-6).pred)
    assert additive["test_accuracy"] == 0.0 and pairwise["test_accuracy"] == 1.0


def test_bad_input_is_clear():
    task = build("addition", split="dispersed")
    with pytest.raises(InputError, match="singular"):
        kernel_fit(task, sims_for("disentangled", 2), ridge=0.0)
    with pytest.raises(InputError, match="unknown task 'nope'"):
        build("nope")
    with pytest.raises(InputError, match="expected 4"):
        kernel_fit(task, np.ones(8), ridge=1.0)
    with pytest.raises(InputError, match="needs 3 similarities"):
        sims_for("sims:0,1", 2)
    with pytest.raises(InputError, match="negative conjunction weight"):
        converged_function(task, sims_for("sims:1,0,1", 2))
