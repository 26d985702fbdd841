import numpy as np
import pytest

from toolkit.compgen import build, errors
from toolkit.compgen.nets import agreement, render, train_and_compare

pytest.importorskip("torch")


def test_render_is_deterministic_and_compositional():
    task = build("addition")
    a, b = render(task, seed=3), render(task, seed=3)
    assert a.shape == (81, 1, 8, 16) and np.array_equal(a, b)
    same_first = (task.x[:, 0] == task.x[0, 0])
    assert np.array_equal(a[same_first][:, :, :, :8], np.repeat(a[:1, :, :, :8], same_first.sum(), 0))


def test_mlp_follows_the_theory_on_addition():
    task = build("addition")
    result = train_and_compare(task, "mlp", steps=150, width=48, seed=0)
    assert result.final_loss < 0.05
    net, theory = errors(task, result.net_pred), errors(task, result.ntk_pred)
    assert net["train_mse"] < 0.05 and theory["train_mse"] < 1e-6
    assert agreement(task, result.net_pred, result.ntk_pred)["corr"] > 0.7
