"""Checkpoint files that cannot be read (truncated by a killed run, another format, absent) are one-line input
errors naming the file, for the safetensors weights and the torch resume states alike."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def test_torch_resume_state_round_trips_and_rejects_damage(tmp_path):
    from toolkit.core.errors import InputError
    from toolkit.core.models import load_torch_state

    good = tmp_path / "state.pt"
    torch.save({"step": 7, "rng": torch.get_rng_state(), "w": torch.arange(4.0)}, good)
    state = load_torch_state(good)
    assert state["step"] == 7 and torch.equal(state["w"], torch.arange(4.0))
    cut = tmp_path / "cut.pt"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    for path, message in ((cut, "cut.pt: corrupted checkpoint"), (tmp_path / "none.pt", "none.pt: no such checkpoint")):
        with pytest.raises(InputError, match=message) as err:
            load_torch_state(path)
        assert "\n" not in str(err.value)
    text = tmp_path / "text.pt"
    text.write_text("not a checkpoint\n")
    with pytest.raises(InputError, match="text.pt: corrupted checkpoint"):
        load_torch_state(text, weights_only=True)


def test_safetensors_weights_reject_damage(tmp_path):
    from safetensors.torch import save_file

    from toolkit.core.errors import InputError
    from toolkit.core.models import load_tensors

    good = tmp_path / "w.safetensors"
    save_file({"a": torch.ones(3)}, str(good))
    assert torch.equal(load_tensors(good)[0]["a"], torch.ones(3))
    good.write_bytes(good.read_bytes()[:20])
    with pytest.raises(InputError, match="w.safetensors: corrupted or not a safetensors checkpoint"):
        load_tensors(good)
