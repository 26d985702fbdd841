"""Steering: add alpha * v to chosen block outputs at every position, as a context manager."""

from __future__ import annotations

import contextlib

from toolkit.core.errors import InputError
from toolkit.steer.layers import find_layers


def check_hidden_size(model, directions: dict[int, object], where: str = "vector") -> None:
    hidden = getattr(model.config, "hidden_size", None) or getattr(model.config, "n_embd", None)
    for layer, v in directions.items():
        if hidden is not None and v.shape[-1] != hidden:
            raise InputError(f"{where}: layer {layer} direction has size {v.shape[-1]} but the model's hidden "
                             f"size is {hidden} (vector derived from a different model?)")


def _steered(hidden, vec, alpha: float, preserve_norm: bool):
    import torch

    out = hidden + alpha * vec.to(hidden.dtype)
    if preserve_norm:
        before = hidden.norm(dim=-1, keepdim=True)
        after = out.norm(dim=-1, keepdim=True).clamp_min(torch.finfo(hidden.dtype).tiny)
        out = out * (before / after)
    return out


@contextlib.contextmanager
def steering(model, directions: dict[int, object], alpha: float, *, preserve_norm: bool = False,
             layers_path: str | None = None):
    """While active, block `l` outputs h + alpha * directions[l] (optionally rescaled to |h|).

    alpha == 0 leaves the model untouched (no hook), so outputs equal the plain model's.
    The hooks are removed on exit, also when the body raises.
    """
    blocks = find_layers(model, layers_path)
    check_hidden_size(model, directions)
    for layer in directions:
        if not 0 <= layer < len(blocks):
            raise InputError(f"vector: layer {layer} does not exist (the model has {len(blocks)} blocks)")
    handles = []
    try:
        if alpha != 0:
            device = next(model.parameters()).device
            for layer, vec in directions.items():
                v = vec.to(device)

                def hook(_module, _inputs, output, v=v):
                    if isinstance(output, tuple):
                        return (_steered(output[0], v, alpha, preserve_norm), *output[1:])
                    return _steered(output, v, alpha, preserve_norm)

                hook.reason_steer = True
                handles.append(blocks[layer].register_forward_hook(hook))
        yield model
    finally:
        for h in handles:
            h.remove()


def active_hooks(model, layers_path: str | None = None) -> int:
    """How many steering hooks sit on the blocks now (0 after steering ends); other hooks are not counted."""
    return sum(1 for b in find_layers(model, layers_path) for h in b._forward_hooks.values()
               if getattr(h, "reason_steer", False))
