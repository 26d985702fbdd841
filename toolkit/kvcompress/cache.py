"""A transformers `Cache` whose layers hold a different number of tokens per KV head.

Layout (per layer, batch size 1 once compressed): a flat, unpadded store
    keys, values : (N, head_dim)     every kept token of every KV head, concatenated
    head         : (N,)              which KV head an entry belongs to
    pos          : (N,)              its true position in the sequence
so memory is exactly sum over heads of their lengths (no padding). Keys are stored after RoPE,
so an entry keeps its true rotation whatever is evicted; new tokens are appended with their true
positions (the cache reports the true number of tokens seen, which is where positions come from).
Before compression (prefill, or the `full` method) a layer is a dense (B, H, L, D) store, like
DynamicLayer. Attention over the flat store is a segment softmax per head (see flat_attention).
"""

from __future__ import annotations

import threading

import torch
from transformers.cache_utils import Cache, CacheLayerMixin

from toolkit.core.errors import InputError

_ACTIVE = threading.local()


def last_updated():
    """(cache, layer_idx) of the most recent HeadCache.update on this thread, then forget it."""
    out = getattr(_ACTIVE, "value", None)
    _ACTIVE.value = None
    return out if out is not None else (None, None)


class HeadLayer(CacheLayerMixin):
    """One layer: dense until `compress` is called, then a flat per-head store."""

    is_sliding = False
    is_compileable = False
    is_croppable = False

    def __init__(self, **kwargs):
        super().__init__()
        self.seen = 0
        self.flat = False
        self.prefilled = False
        self.head = self.pos = None
        self.n_heads = 0

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        self.device = key_states.device
        self.n_heads = key_states.shape[1]
        self.keys = key_states[:, :, :0]
        self.values = value_states[:, :, :0]
        self.is_initialized = True

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        n_new = key_states.shape[-2]
        if not self.flat:
            self.keys = torch.cat([self.keys, key_states], dim=-2)
            self.values = torch.cat([self.values, value_states], dim=-2)
        else:
            h, d = key_states.shape[1], key_states.shape[-1]
            # token-major: all heads of the first new token, then the next token ...
            self.keys = torch.cat([self.keys, key_states[0].transpose(0, 1).reshape(n_new * h, d)])
            self.values = torch.cat([self.values, value_states[0].transpose(0, 1).reshape(n_new * h, d)])
            heads = torch.arange(h, device=self.head.device).repeat(n_new)
            pos = self.seen + torch.arange(n_new, device=self.pos.device).repeat_interleave(h)
            self.head = torch.cat([self.head, heads])
            self.pos = torch.cat([self.pos, pos])
        self.seen += n_new
        return self.keys, self.values

    def compress(self, keep: list[torch.Tensor]) -> None:
        """Keep, for KV head h, the dense positions keep[h] (1-D LongTensor). Switches to the flat store."""
        if self.flat:
            raise RuntimeError("layer already compressed")
        if self.keys.shape[0] != 1:
            raise RuntimeError("per-head compression needs batch size 1")
        ks, vs, hs, ps = [], [], [], []
        for h, idx in enumerate(keep):
            idx = idx.to(self.keys.device).sort().values
            ks.append(self.keys[0, h, idx])
            vs.append(self.values[0, h, idx])
            hs.append(torch.full_like(idx, h))
            ps.append(idx)
        self.keys, self.values = torch.cat(ks), torch.cat(vs)
        self.head, self.pos = torch.cat(hs), torch.cat(ps)
        self.flat = True

    def head_lengths(self) -> list[int]:
        if not self.is_initialized:
            return []
        if not self.flat:
            return [int(self.keys.shape[-2])] * self.n_heads
        return torch.bincount(self.head, minlength=self.n_heads).tolist()

    def stored_bytes(self) -> int:
        if not self.is_initialized:
            return 0
        return int(self.keys.numel() * self.keys.element_size() + self.values.numel() * self.values.element_size())

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        return self.seen + query_length, 0

    def get_seq_length(self) -> int:
        return self.seen

    def get_max_length(self) -> int:
        return -1

    def reset(self) -> None:
        self.__init__()

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        raise InputError("kvcompress caches hold one sequence with per-head lengths: beam search "
                         "(num_beams > 1) is not supported; use greedy or sampling")


class HeadCache(Cache):
    """Cache for model.generate with per-head lengths; `press` (optional) compresses each layer at prefill."""

    def __init__(self, press=None):
        super().__init__(layer_class_to_replicate=HeadLayer)
        self.press = press
        self.peak_bytes = 0  # largest KV footprint seen (a layer is dense between its update and its compression)

    def update(self, key_states, value_states, layer_idx, *args, **kwargs):
        out = super().update(key_states, value_states, layer_idx, *args, **kwargs)
        _ACTIVE.value = (self, layer_idx)
        self.peak_bytes = max(self.peak_bytes, self.stored_bytes())
        return out

    def head_lengths(self) -> list[list[int]]:
        """Tokens held per (layer, KV head)."""
        return [layer.head_lengths() for layer in self.layers]

    def stored_bytes(self) -> int:
        """Bytes of keys and values actually held (all layers)."""
        return sum(layer.stored_bytes() for layer in self.layers)

    def stored_entries(self) -> int:
        """KV entries (one key + one value vector per head per token) actually held."""
        return sum(sum(layer.head_lengths()) for layer in self.layers)


def flat_attention(query: torch.Tensor, layer: HeadLayer, scaling: float) -> torch.Tensor:
    """Attention of `query` (1, Hq, T, D) over a flat per-head store; returns (1, T, Hq, D).

    The T queries are the last T tokens seen; each attends to entries of its KV head whose
    position is <= its own (causal among the new tokens too).
    """
    _, n_q_heads, t, d = query.shape
    h = layer.n_heads
    g = n_q_heads // h
    q = query[0].reshape(h, g, t, d)
    head, keys, values = layer.head, layer.keys, layer.values
    qs = q[head]  # (N, G, T, D)
    scores = torch.einsum("ngtd,nd->ngt", qs.float(), keys.float()) * scaling
    qpos = layer.seen - t + torch.arange(t, device=query.device)
    allowed = layer.pos[:, None] <= qpos[None, :]  # (N, T)
    scores = scores.masked_fill(~allowed[:, None, :], float("-inf"))
    n = scores.shape[0]
    idx = head[:, None, None].expand(n, g, t)
    top = torch.full((h, g, t), float("-inf"), device=query.device).scatter_reduce(
        0, idx, scores, reduce="amax", include_self=True)
    e = torch.exp(scores - top[head])
    den = torch.zeros((h, g, t), device=query.device).index_add_(0, head, e)
    p = e / den[head]
    weighted = p[..., None] * values.float()[:, None, None, :]
    out = torch.zeros((h, g, t, d), device=query.device).index_add_(0, head, weighted)
    return out.reshape(n_q_heads, t, d).transpose(0, 1).unsqueeze(0).to(query.dtype)
