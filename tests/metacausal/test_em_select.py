import numpy as np
import pytest

from toolkit.metacausal.em import draw_starts, fit_fast
from toolkit.metacausal.em_reference import fit_reference
from toolkit.metacausal.generate import sample_linear
from toolkit.metacausal.inference import infer
from toolkit.metacausal.select import ad_check


def _line(rng, n, slope, intercept, b, direction):
    cause = rng.uniform(-5, 5, n)
    effect = slope * cause + intercept + rng.laplace(0, b, n)
    return (effect, cause) if direction else (cause, effect)


def test_two_clean_lines_recovered_with_directions():
    from toolkit.metacausal.accuracy import in_direction
    from toolkit.metacausal.mixture import fit_mixture

    rng = np.random.default_rng(4)
    x1, y1 = _line(rng, 500, 2.0, 1.0, 0.1, 0)
    x2, y2 = _line(rng, 500, -1.5, -2.0, 0.1, 1)
    x, y = np.concatenate([x1, x2]), np.concatenate([y1, y2])
    fit = fit_fast(x, y, 2, draw_starts(len(x), 2, 20, rng))
    # hard EM finds both lines; with noise this small its AD direction rule cannot tell the directions apart
    # (the reverse residual is a scaled copy of the Laplace noise), so compare lines in the true direction
    lines = sorted(in_direction(s, a, d != want) for s, a, d, want in
                   zip(fit.slope, fit.intercept, fit.direction, [0, 1] if fit.slope[0] > 0 else [1, 0], strict=True))
    np.testing.assert_allclose(lines, [(-1.5, -2.0), (2.0, 1.0)], atol=0.05)
    # the mixture's joint likelihood (uniform cause x Laplace effect) gets the directions right
    mix = fit_mixture(x, y, np.column_stack([fit.slope, fit.intercept, fit.scale, fit.direction]), fit.labels)
    order = np.argsort(-mix.params[:, 0])
    assert mix.params[order, 3].tolist() == [0, 1]
    np.testing.assert_allclose(mix.params[order, 0], [2.0, -1.5], atol=0.05)
    np.testing.assert_allclose(mix.params[order, 1], [1.0, -2.0], atol=0.05)


def test_single_reverse_mechanism_direction():
    """The mixture's likelihood direction is right on (nearly) every seed; the benchmark's AD rule on hard EM is
    much weaker here (its figure is reported in the assets README), so it is only held to better than chance."""
    mixture_right = ad_right = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        x, y = _line(rng, 500, rng.uniform(0.5, 2.0), rng.uniform(-2, 2), 1.0, 1)
        inf = infer(x, y, 1, 2, rng, methods=("bic",))
        mixture_right += int(inf.mixtures[0].params[0, 3] == 1)
        ad_right += int(inf.fits[0].direction[0] == 1)
    assert mixture_right >= 18
    assert ad_right >= 10


def test_fast_and_reference_engines_agree_on_k_hat():
    # Both engines solve every L1 fit exactly, but a mechanism whose two directions have almost equal A^2 can flip
    # on a 1e-9 difference between two optimal lines, after which the runs part ways; these problems have none.
    agree = 0
    for seed in range(8):
        rng = np.random.default_rng(300 + seed)
        p = sample_linear(1 + seed % 2, rng, per_mechanism=80)
        khat = []
        for fit_fn in (fit_fast, fit_reference):
            starts = [draw_starts(len(p.x), k, 2, np.random.default_rng(seed)) for k in (1, 2)]
            fits = [fit_fn(p.x, p.y, k, s) for k, s in zip((1, 2), starts, strict=True)]
            checks = [ad_check(p.x, p.y, f) for f in fits]
            ok = [c for c in checks if c.accepted]
            khat.append(min(ok, key=lambda c: c.mean_a2).active if ok else 0)
        agree += khat[0] == khat[1]
    assert agree == 8


@pytest.mark.parametrize("method", ["ad", "bic"])
def test_one_mechanism_gives_k_hat_one(method):
    rng = np.random.default_rng(5)
    x, y = _line(rng, 600, 1.7, 0.5, 0.8, 0)
    inf = infer(x, y, 3, 4, rng, methods=(method,))
    assert inf.choice[method][1] == 1


def test_ad_answers_none_when_nothing_is_laplacian():
    rng = np.random.default_rng(6)
    x = rng.uniform(-5, 5, 800)
    y = 0.5 * x + rng.uniform(-3, 3, 800) ** 3 / 5  # heavy non-Laplace noise that no line mixture explains
    inf = infer(x, y, 2, 4, rng, methods=("ad", "bic"))
    assert inf.choice["ad"] == (None, 0)
    assert inf.choice["bic"][1] >= 1  # an information criterion always answers
