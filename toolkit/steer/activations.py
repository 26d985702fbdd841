"""Read block outputs (the residual stream) at the last real token of each text, batched."""

from __future__ import annotations

import contextlib

from toolkit.steer.batching import chunks, encode_batch, forward
from toolkit.steer.layers import find_layers


def _hidden(output):
    return output[0] if isinstance(output, tuple) else output


@contextlib.contextmanager
def capture(blocks, layers: list[int]):
    """Forward hooks storing each chosen block's output; removed on exit, even after an error."""
    store: dict[int, object] = {}
    handles = []
    try:
        for layer in layers:
            def hook(_module, _inputs, output, layer=layer):
                store[layer] = _hidden(output).detach()
            handles.append(blocks[layer].register_forward_hook(hook))
        yield store
    finally:
        for h in handles:
            h.remove()


def read_last_token(model, tokenizer, texts: list[str], layers: list[int], *, batch_size: int = 32,
                    layers_path: str | None = None, device: str = "cpu") -> dict[int, object]:
    """{layer: float32 tensor [len(texts), hidden]} of block outputs at each text's last non-pad token.

    Batches are left-padded, so the last column is every row's last real token.
    """
    import torch

    blocks = find_layers(model, layers_path)
    parts: dict[int, list] = {layer: [] for layer in layers}
    with torch.no_grad(), capture(blocks, layers) as store:
        for chunk in chunks(texts, batch_size):
            ids, mask, pos = encode_batch(tokenizer, chunk, device)
            forward(model, ids, mask, pos)
            for layer in layers:
                parts[layer].append(store[layer][:, -1, :].float().cpu())
    return {layer: torch.cat(parts[layer]) for layer in layers}
