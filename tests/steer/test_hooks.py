from __future__ import annotations

import pytest
import torch

from toolkit.core.errors import InputError
from toolkit.steer.activations import capture
from toolkit.steer.batching import encode_batch, forward
from toolkit.steer.generate import generate_steered
from toolkit.steer.hooks import active_hooks, steering
from toolkit.steer.layers import find_layers
from toolkit.steer.vectors import ControlVector

PROMPTS = ["math 3 + 4 =", "seq 2 4 6 8 next ?", "ann > bob . bob > cat . is ann > cat ?"]


def _vec(model, layers=(1,), seed=0):
    g = torch.Generator().manual_seed(seed)
    return ControlVector({la: torch.randn(model.config.hidden_size, generator=g) for la in layers})


def _logits(model, tok):
    ids, mask, pos = encode_batch(tok, PROMPTS)
    with torch.no_grad():
        return forward(model, ids, mask, pos).logits


def test_alpha_zero_identical_to_plain_model(any_model):
    model, tok = any_model
    plain = _logits(model, tok)
    with steering(model, _vec(model).directions, 0.0):
        steered = _logits(model, tok)
    assert torch.equal(plain, steered)
    base_gen = generate_steered(model, tok, PROMPTS, None, 0.0, max_new_tokens=4)
    assert generate_steered(model, tok, PROMPTS, _vec(model), 0.0, max_new_tokens=4) == base_gen


def test_hook_adds_alpha_v_at_every_position_and_is_removed(any_model):
    model, tok = any_model
    vec = _vec(model, (1,))
    blocks = find_layers(model)
    ids, mask, pos = encode_batch(tok, PROMPTS)
    with torch.no_grad(), capture(blocks, [1]) as plain:
        forward(model, ids, mask, pos)
        before = plain[1].clone()
    with torch.no_grad(), steering(model, vec.directions, 0.7):
        assert active_hooks(model) == 1
        with capture(blocks, [1]) as steered:
            forward(model, ids, mask, pos)
    torch.testing.assert_close(steered[1] - before, (0.7 * vec.directions[1]).expand_as(before), atol=1e-5,
                               rtol=1e-5)
    assert active_hooks(model) == 0
    torch.testing.assert_close(_logits(model, tok), forward(model, ids, mask, pos).logits.detach())


def test_hook_removed_after_error_and_changes_output(neox):
    model, tok = neox
    plain = _logits(model, tok)
    with pytest.raises(RuntimeError, match="boom"), steering(model, _vec(model).directions, 3.0):
        assert not torch.allclose(_logits(model, tok), plain)
        raise RuntimeError("boom")
    assert active_hooks(model) == 0
    assert torch.equal(_logits(model, tok), plain)


def test_norm_preserving_mode(neox):
    model, tok = neox
    blocks = find_layers(model)
    ids, mask, pos = encode_batch(tok, PROMPTS)
    with torch.no_grad(), capture(blocks, [1]) as plain:
        forward(model, ids, mask, pos)
        before = plain[1].clone()
    # capture registers after the steering hook, so it sees the steered output
    with torch.no_grad(), steering(model, _vec(model).directions, 2.0, preserve_norm=True):
        with capture(blocks, [1]) as steered:
            forward(model, ids, mask, pos)
    torch.testing.assert_close(steered[1].norm(dim=-1), before.norm(dim=-1), atol=1e-4, rtol=1e-4)
    assert not torch.allclose(steered[1], before)


def test_hidden_size_mismatch_and_bad_layer(neox):
    model, _ = neox
    with pytest.raises(InputError, match="size 7 but the model's hidden size is 32"):
        with steering(model, {1: torch.zeros(7)}, 1.0):
            pass
    with pytest.raises(InputError, match="layer 9 does not exist"):
        with steering(model, {9: torch.zeros(32)}, 1.0):
            pass
    assert active_hooks(model) == 0


def test_batched_generation_matches_single(any_model):
    model, tok = any_model
    vec = _vec(model, (0, 2))
    batched = generate_steered(model, tok, PROMPTS, vec, 0.5, max_new_tokens=5, batch_size=3)
    singles = [generate_steered(model, tok, [p], vec, 0.5, max_new_tokens=5)[0] for p in PROMPTS]
    assert batched == singles
    assert all(len(t.split()) > 0 for t in batched)
