"""The fused CPU scan computes the selective recurrence and its gradients exactly as the step-by-step formula."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def _recurrence(x, dt, a_mat, b_in, c_in, h0):
    h, ys = h0, []
    for t in range(x.shape[1]):
        h = torch.exp(dt[:, t, :, None] * a_mat) * h + dt[:, t, :, None] * b_in[:, t, None, :] * x[:, t, :, None]
        ys.append((h * c_in[:, t, None, :]).sum(-1))
    return torch.stack(ys, 1), h


def test_fused_scan_values_and_every_gradient_match_the_recurrence():
    from toolkit.ssm_limits.scan import fused_scan

    torch.manual_seed(0)
    batch, length, channels, state = 3, 9, 5, 4
    inputs = [torch.randn(batch, length, channels), torch.rand(batch, length, channels) * 0.5 + 0.01,
              -torch.rand(channels, state) * 3, torch.randn(batch, length, state), torch.randn(batch, length, state),
              torch.randn(batch, channels, state)]
    for v in inputs:
        v.requires_grad_()
    w_y, w_h = torch.randn(batch, length, channels), torch.randn(batch, channels, state)
    results = []
    for fn in (_recurrence, fused_scan):
        y, h = fn(*inputs)
        ((y * w_y).sum() + (h * w_h).sum()).backward()
        results.append([y.detach(), h.detach()] + [v.grad.clone() for v in inputs])
        for v in inputs:
            v.grad = None
    names = ["y", "h_last", "dx", "ddt", "dA", "dB", "dC", "dh0"]
    for name, ref, got in zip(names, *results, strict=True):
        assert torch.allclose(ref, got, atol=1e-5), name
        assert got.abs().max() > 0, name  # every gradient is exercised


def test_transformers_mamba_is_unchanged_by_the_fused_mixer_and_restored_after(monkeypatch):
    from transformers.models.mamba import modeling_mamba

    from toolkit.ssm_limits import scan
    from toolkit.ssm_limits.models import build_model
    from toolkit.ssm_limits.scan import fused_mixer_class, use_fast_mamba_scan

    calls = []
    real = scan.fused_scan
    monkeypatch.setattr(scan, "fused_scan", lambda *a, **k: calls.append(1) or real(*a, **k))

    torch.manual_seed(0)
    model = build_model("mamba", layers=2, hidden=32, state=8).eval()
    ids = torch.randint(4, 60, (4, 30))

    def run():
        model.zero_grad()
        out = model(input_ids=ids, labels=ids, use_cache=False)  # as training calls it
        out.loss.backward()
        return out.logits.detach(), [p.grad.clone() for p in model.parameters()]
    ref_logits, ref_grads = run()
    assert not calls
    original = modeling_mamba.mamba_selective_scan
    with use_fast_mamba_scan(model):
        mixers = [m for m in model.modules() if isinstance(m, modeling_mamba.MambaMixer)]
        assert len(mixers) == 2 and all(type(m) is fused_mixer_class() for m in mixers)
        logits, grads = run()
    assert len(calls) == 2  # the fused scan ran, once per layer (not the parent's path)
    assert modeling_mamba.mamba_selective_scan is original  # no transformers global is touched
    assert all(type(m) is modeling_mamba.MambaMixer for m in mixers)
    assert torch.allclose(ref_logits, logits, atol=1e-5)
    assert all(torch.allclose(r, g, atol=1e-6) for r, g in zip(ref_grads, grads, strict=True))
