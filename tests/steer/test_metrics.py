from __future__ import annotations

import math

import pytest
import torch

from toolkit.core.errors import InputError
from toolkit.steer.scoring import entropy_bits, kl_divergence, option_token_ids, score_problems
from toolkit.steer.sweep import SweepPoint, choose, mcnemar_p, parse_alphas, sweep_split
from toolkit.steer.tasks import Problem, generate
from toolkit.steer.vectors import ControlVector


def test_kl_and_entropy_against_hand_computed():
    p = torch.tensor([[0.5, 0.5, 0.0], [0.25, 0.25, 0.5]], dtype=torch.float64)
    q = torch.tensor([[0.9, 0.1, 0.0], [0.25, 0.25, 0.5]], dtype=torch.float64)
    kl = kl_divergence(p, q)
    hand = 0.5 * math.log(0.5 / 0.9) + 0.5 * math.log(0.5 / 0.1)
    assert abs(float(kl[0]) - hand) < 1e-6
    assert abs(float(kl[1])) < 1e-12
    ent = entropy_bits(p)
    assert abs(float(ent[0]) - 1.0) < 1e-6 and abs(float(ent[1]) - 1.5) < 1e-6
    uniform = torch.full((1, 8), 1 / 8, dtype=torch.float64)
    assert abs(float(entropy_bits(uniform)[0]) - 3.0) < 1e-6
    # eps inside the logs keeps a zero in Q finite: 1e-8 floor
    assert abs(float(kl_divergence(torch.tensor([[1.0, 0.0]]), torch.tensor([[0.0, 1.0]]))[0])
               - math.log((1 + 1e-8) / 1e-8)) < 1e-3


def test_accuracy_is_argmax_over_option_logits(neox):
    model, tok = neox
    problems = generate("mathematical", "validation", 12, 0)
    scores = score_problems(model, tok, problems, batch_size=5)
    from toolkit.steer.batching import encode_batch, forward

    for p, pred in zip(problems, scores.predicted, strict=True):
        ids, mask, pos = encode_batch(tok, [p.prompt])
        logits = forward(model, ids, mask, pos).logits[0, -1]
        opt = option_token_ids(tok, p.options)
        assert pred == int(torch.argmax(logits[opt]))
    assert scores.accuracy == sum(scores.correct) / 12
    torch.testing.assert_close(scores.probs.sum(-1), torch.ones(12, dtype=torch.float64))
    # flip every answer to the model's pick: accuracy becomes 1
    forced = [Problem(p.family, p.split, p.index, p.prompt, p.options, k, {})
              for p, k in zip(problems, scores.predicted, strict=True)]
    assert score_problems(model, tok, forced).accuracy == 1.0


def test_sweep_alpha_zero_has_zero_kl(neox):
    model, tok = neox
    problems = generate("inductive", "validation", 10, 0)
    vec = ControlVector({1: torch.randn(32, generator=torch.Generator().manual_seed(1))})
    points = sweep_split(model, tok, problems, vec, 1, [-2.0, 0.0, 2.0], family="inductive", split="validation")
    zero = next(p for p in points if p.alpha == 0.0)
    assert zero.kl_nats == 0.0
    assert zero.accuracy == score_problems(model, tok, problems).accuracy
    assert all(p.kl_nats > 0 for p in points if p.alpha != 0)
    assert zero.fixed == zero.broken == 0
    base_right = round(zero.accuracy * 10)
    for p in points:
        assert round(p.accuracy * 10) == base_right + p.fixed - p.broken


def test_mcnemar_exact_p_value():
    assert abs(mcnemar_p(10, 2) - 2 * (1 + 12 + 66) / 4096) < 1e-12
    assert mcnemar_p(0, 0) == 1.0 and mcnemar_p(3, 3) == 1.0
    assert mcnemar_p(2, 10) == mcnemar_p(10, 2)


def test_parse_alphas_and_choice():
    assert parse_alphas("-1:1:0.5") == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert parse_alphas("0.5,1") == [0.0, 0.5, 1.0]
    with pytest.raises(InputError, match="--alphas"):
        parse_alphas("1:-1:0.5")
    pts = [SweepPoint("f", "validation", 1, a, 10, acc, 0, 0) for a, acc in ((-1, 0.6), (0, 0.6), (1, 0.5))]
    assert choose(pts).alpha == 0
    pts.append(SweepPoint("f", "validation", 2, 0.5, 10, 0.7, 0, 0))
    assert (choose(pts).layer, choose(pts).alpha) == (2, 0.5)


def test_choice_record_picks_on_validation_and_reports_test_gain():
    from toolkit.core.records import to_record
    from toolkit.steer.sweep import choice_record

    val = [SweepPoint("f", "validation", 1, a, 10, acc, 0, 0) for a, acc in ((0, 0.5), (0.5, 0.8), (1, 0.7))]
    test = [SweepPoint("f", "test", 1, 0, 40, 0.5, 0.0, 1.0),
            SweepPoint("f", "test", 1, 0.5, 40, 0.7, 0.01, 0.9, fixed=10, broken=2),
            SweepPoint("f", "test", 1, 1, 40, 0.9, 0.2, 0.5, fixed=17, broken=1)]  # best on test, not chosen
    other = [to_record(SweepPoint("g", "validation", 1, 1, 10, 1.0, 0, 0))]
    rec = choice_record("f", [to_record(p) for p in val + test] + other, vector="v.safetensors", method="mean")
    assert (rec["type"], rec["alpha"], rec["layer"], rec["validation_accuracy"]) == ("steer.choice", 0.5, 1, 0.8)
    assert (rec["test_accuracy_base"], rec["test_accuracy_steered"], rec["test_gain"]) == (0.5, 0.7, 0.2)
    assert (rec["test_fixed"], rec["test_broken"], rec["n_test"]) == (10, 2, 40)
    assert rec["test_mcnemar_p"] == round(2 * (1 + 12 + 66) / 4096, 6)


def test_options_sharing_a_first_token_are_rejected(neox):
    _, tok = neox
    with pytest.raises(InputError, match="share a first token"):
        option_token_ids(tok, ["yes", "yes no"])


def test_unwritable_plot_path_is_one_line_input_error(tmp_path):
    from toolkit.core.errors import InputError
    from toolkit.core.paths import check_writable
    from toolkit.steer.plot import plot_sweep

    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError, match="--plot .*cannot write"):
        check_writable(blocker / "p.png", "--plot")
    points = [{"family": "f", "split": "test", "layer": 1, "alpha": a, "accuracy": 0.5, "kl_nats": 0.0,
               "entropy_bits": 1.0} for a in (0.0, 1.0)]
    with pytest.raises(InputError, match="--plot .*cannot write"):
        plot_sweep(points, blocker / "p.png")
    assert plot_sweep(points, tmp_path / "d" / "p.png").stat().st_size > 0
