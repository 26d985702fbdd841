from __future__ import annotations

import pytest
import torch

from toolkit.core.errors import InputError
from toolkit.steer.tasks import generate, make_pairs
from toolkit.steer.vectors import ControlVector, derive, derive_direction, load_vector, save_vector


def _pairs(n=16):
    return make_pairs(generate("mathematical", "train", n, 0), 0)


def test_vectors_deterministic_for_a_seed():
    from tests.steer.models import build

    a = derive(*build("neox", seed=5), _pairs(), [0, 2], "pca-diff")
    b = derive(*build("neox", seed=5), _pairs(), [0, 2], "pca-diff")
    c = derive(*build("neox", seed=6), _pairs(), [0, 2], "pca-diff")
    for layer in (0, 2):
        assert torch.equal(a.directions[layer], b.directions[layer])
        assert not torch.allclose(a.directions[layer], c.directions[layer])


def test_mean_and_mean_diff_values():
    pos = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    neg = torch.tensor([[0.0, 0.0], [1.0, 6.0]])
    torch.testing.assert_close(derive_direction(pos, neg, "mean"), torch.tensor([2.0, 3.0]))
    torch.testing.assert_close(derive_direction(pos, neg, "mean-diff"), torch.tensor([1.5, 0.0]))
    with pytest.raises(InputError, match="--method"):
        derive_direction(pos, neg, "ica")


@pytest.mark.parametrize("seed", range(6))
def test_pca_sign_fix_positives_project_higher(seed):
    g = torch.Generator().manual_seed(seed)
    d = torch.randn(16, generator=g)
    d = d / d.norm()
    base = torch.randn(40, 16, generator=g) * 3
    # positives sit +1.5 along d from their negatives (plus noise); the raw SVD sign is arbitrary
    pos = base + 1.5 * d + 0.1 * torch.randn(40, 16, generator=g)
    neg = base
    v = derive_direction(pos, neg, "pca-diff")
    assert float(v @ d) > 0
    assert ((pos @ v) > (neg @ v)).float().mean() > 0.9
    # scaled to the mean projected gap: about 1.5 along d
    assert abs(float(v.norm()) - 1.5) < 0.2
    # swapping the roles flips the direction
    w = derive_direction(neg, pos, "pca-diff")
    torch.testing.assert_close(w, -v, atol=1e-5, rtol=1e-4)


def test_pca_sign_fix_on_real_activations(neox):
    model, tok = neox
    pairs = _pairs(24)
    vec = derive(model, tok, pairs, [1], "pca-diff")
    from toolkit.steer.activations import read_last_token

    pos = read_last_token(model, tok, [p.positive for p in pairs], [1])[1]
    neg = read_last_token(model, tok, [p.negative for p in pairs], [1])[1]
    v = vec.directions[1]
    assert int(((pos - neg) @ v > 0).sum()) >= int(((pos - neg) @ v < 0).sum())


def test_arithmetic_and_save_load(tmp_path):
    a = ControlVector({1: torch.tensor([1.0, 2.0]), 2: torch.tensor([0.0, 1.0])}, "m", "gpt_neox", "mean-diff")
    b = ControlVector({2: torch.tensor([1.0, 1.0]), 3: torch.tensor([5.0, 5.0])}, "m", "gpt_neox", "mean-diff")
    s = a + 2 * b
    assert s.layers == [1, 2, 3]
    torch.testing.assert_close(s.directions[2], torch.tensor([2.0, 3.0]))
    torch.testing.assert_close((a - a).directions[1], torch.zeros(2))
    torch.testing.assert_close((-a).directions[1], torch.tensor([-1.0, -2.0]))
    with pytest.raises(InputError, match="hidden size"):
        a + ControlVector({1: torch.zeros(3)})
    save_vector(s, tmp_path / "v.safetensors")
    back = load_vector(tmp_path / "v.safetensors")
    assert back.layers == [1, 2, 3] and back.method == "mean-diff" and back.model_type == "gpt_neox"
    for k in back.layers:
        assert torch.equal(back.directions[k], s.directions[k])
    with pytest.raises(InputError, match="no direction for layer"):
        s.only([7])
    (tmp_path / "junk.safetensors").write_bytes(b"nope")
    with pytest.raises(InputError, match="junk.safetensors"):
        load_vector(tmp_path / "junk.safetensors")


def test_unwritable_out_is_one_line_input_error(tmp_path):
    import torch

    from toolkit.core.errors import InputError
    from toolkit.steer.gguf_io import export_gguf
    from toolkit.steer.vectors import ControlVector, save_vector

    blocker = tmp_path / "file"
    blocker.write_text("x")
    vec = ControlVector({1: torch.ones(8)}, "m", "gpt_neox", "mean-diff")
    for write, name in ((save_vector, "v.safetensors"), (export_gguf, "v.gguf")):
        with pytest.raises(InputError, match="cannot write") as info:
            write(vec, blocker / name)
        assert str(blocker / name) in str(info.value) and "\n" not in str(info.value)
    assert blocker.read_text() == "x"
