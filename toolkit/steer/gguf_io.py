"""llama.cpp control-vector GGUF files, the format repeng writes.

general.architecture = "controlvector", keys controlvector.model_hint (string) and
controlvector.layer_count (uint32), one F32 tensor "direction.N" per layer, where N is the
0-based index of the block whose output it is added to. llama.cpp refuses direction.0 (it
never steers block 0), so such a vector cannot be exported.
"""

from __future__ import annotations

from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.extras import require
from toolkit.steer.vectors import ControlVector

ARCH = "controlvector"


def export_gguf(vec: ControlVector, path: str | Path) -> None:
    require("ml", "gguf", "numpy")
    import gguf

    if 0 in vec.directions:
        raise InputError("vector has a direction for layer 0, which llama.cpp never applies; "
                         "derive it without layer 0 (e.g. --layers 1..N)")
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb"):
            pass
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    writer = gguf.GGUFWriter(str(path), ARCH)
    writer.add_string(f"{ARCH}.model_hint", vec.model_type or "unknown")
    writer.add_uint32(f"{ARCH}.layer_count", len(vec.directions))
    for layer in vec.layers:
        writer.add_tensor(f"direction.{layer}", vec.directions[layer].float().cpu().numpy())
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def _field_value(reader, key: str):
    f = reader.get_field(key)
    if f is None or not f.data:
        return None
    part = f.parts[f.data[0]]
    if f.types and f.types[0] == __import__("gguf").GGUFValueType.STRING:
        return bytes(part).decode("utf-8")
    return part.tolist()[0]


def import_gguf(path: str | Path) -> ControlVector:
    require("ml", "gguf", "numpy", "torch")
    import gguf
    import torch

    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such GGUF file")
    try:
        reader = gguf.GGUFReader(str(p))
    except Exception as exc:  # the reader raises ValueError/struct errors for foreign files
        raise InputError(f"{p}: not a GGUF file ({exc})") from None
    arch = _field_value(reader, "general.architecture")
    if arch != ARCH:
        raise InputError(f"{p}: general.architecture is {arch!r}, expected '{ARCH}' (not a control vector)")
    directions = {}
    for t in reader.tensors:
        if not t.name.startswith("direction."):
            continue
        try:
            layer = int(t.name.split(".", 1)[1])
        except ValueError:
            raise InputError(f"{p}: tensor '{t.name}' is not direction.N") from None
        directions[layer] = torch.tensor(t.data.astype("float32").reshape(-1).copy())
    if not directions:
        raise InputError(f"{p}: no direction.N tensors")
    count = _field_value(reader, f"{ARCH}.layer_count")
    if count is not None and int(count) != len(directions):
        raise InputError(f"{p}: {ARCH}.layer_count is {count} but the file has {len(directions)} directions")
    hint = _field_value(reader, f"{ARCH}.model_hint") or ""
    return ControlVector(directions, "", hint, "gguf", {"source": str(p)})
