from __future__ import annotations

import gguf
import pytest
import torch

from toolkit.core.errors import InputError
from toolkit.steer.gguf_io import export_gguf, import_gguf
from toolkit.steer.vectors import ControlVector, load_vector


def test_gguf_round_trip_and_repeng_layout(tmp_path):
    g = torch.Generator().manual_seed(0)
    vec = ControlVector({1: torch.randn(48, generator=g), 3: torch.randn(48, generator=g)}, "m", "gpt_neox", "pca-diff")
    path = tmp_path / "v.gguf"
    export_gguf(vec, path)
    back = import_gguf(path)
    assert back.layers == [1, 3] and back.model_type == "gpt_neox"
    for k in (1, 3):
        assert torch.equal(back.directions[k], vec.directions[k])
    assert load_vector(path).layers == [1, 3]
    reader = gguf.GGUFReader(str(path))
    assert sorted(t.name for t in reader.tensors) == ["direction.1", "direction.3"]
    arch = reader.get_field("general.architecture")
    assert bytes(arch.parts[arch.data[0]]).decode() == "controlvector"
    count = reader.get_field("controlvector.layer_count")
    assert count.parts[count.data[0]].tolist() == [2]
    assert count.types[0] == gguf.GGUFValueType.UINT32
    hint = reader.get_field("controlvector.model_hint")
    assert bytes(hint.parts[hint.data[0]]).decode() == "gpt_neox"


def test_gguf_errors(tmp_path):
    with pytest.raises(InputError, match="layer 0"):
        export_gguf(ControlVector({0: torch.zeros(4), 1: torch.zeros(4)}), tmp_path / "x.gguf")
    w = gguf.GGUFWriter(str(tmp_path / "model.gguf"), "llama")
    w.add_tensor("token_embd.weight", torch.zeros(4, 4).numpy())
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    with pytest.raises(InputError, match="expected 'controlvector'"):
        import_gguf(tmp_path / "model.gguf")
    (tmp_path / "junk.gguf").write_bytes(b"not a gguf file at all")
    with pytest.raises(InputError, match="junk.gguf"):
        import_gguf(tmp_path / "junk.gguf")
