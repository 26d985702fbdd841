"""Find the list of transformer blocks of a causal LM (whose outputs form the residual stream)."""

from __future__ import annotations

from toolkit.core.errors import InputError

KNOWN_PATHS = (
    "model.layers",  # Llama, Mistral, Qwen, Gemma
    "transformer.h",  # GPT-2
    "gpt_neox.layers",  # GPT-NeoX / Pythia
)


def _resolve(model, path: str):
    obj = model
    for part in path.split("."):
        if not hasattr(obj, part):
            return None
        obj = getattr(obj, part)
    return obj


def find_layers(model, layers_path: str | None = None):
    """The block list (a torch ModuleList); a clear error naming --layers-path when not found."""
    import torch

    if layers_path:
        found = _resolve(model, layers_path)
        if not isinstance(found, torch.nn.ModuleList):
            raise InputError(f"--layers-path {layers_path}: no list of blocks at that attribute path "
                             f"of {type(model).__name__}")
        return found
    for path in KNOWN_PATHS:
        found = _resolve(model, path)
        if isinstance(found, torch.nn.ModuleList):
            return found
    arch = getattr(getattr(model, "config", None), "model_type", type(model).__name__)
    raise InputError(f"unsupported architecture '{arch}': cannot find its transformer blocks "
                     f"(tried {', '.join(KNOWN_PATHS)}); pass --layers-path, e.g. --layers-path model.decoder.layers")


def parse_layers(spec: str | None, n_layers: int) -> list[int]:
    """'2', '1,3', '1..3' (inclusive), '-1' (last) or 'all' -> sorted block indices, checked against the model."""
    if spec is None or spec.strip() in ("", "all"):
        return list(range(n_layers))
    out: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        try:
            if ".." in part:
                lo, hi = (int(x) for x in part.split("..", 1))
                picked = list(range(lo, hi + 1))
            else:
                picked = [int(part)]
        except ValueError:
            raise InputError(f"--layers {spec}: expected indices like 2, 1,3, 1..3 or all") from None
        for i in picked:
            j = i + n_layers if i < 0 else i
            if not 0 <= j < n_layers:
                raise InputError(f"--layers {spec}: layer {i} out of range (the model has {n_layers} blocks)")
            out.append(j)
    if not out:
        raise InputError(f"--layers {spec}: no layers chosen")
    return sorted(dict.fromkeys(out))
