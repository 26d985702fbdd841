"""A transformers `Cache` whose layers hold a different number of tokens per KV head.

Layout (per layer, once compressed): a flat, unpadded store
    keys, values : (N, head_dim)     every kept token of every KV head of every batch row, concatenated
    row, head    : (N,)              which batch row and KV head an entry belongs to
    pos          : (N,)              its column in the sequence (left padding included)
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
        self.prompt_length = 0  # tokens of the first (prefill) update
        self.flat = False
        self.prefilled = False
        self.head = self.pos = self.row = None
        self.n_heads = 0
        self.pages = None  # Quest page metadata (quest.PageIndex), when the press selects pages

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
        if self.seen == 0:
            self.prompt_length = n_new
        if not self.flat:
            self.keys = torch.cat([self.keys, key_states], dim=-2)
            self.values = torch.cat([self.values, value_states], dim=-2)
        else:
            b, h, d = key_states.shape[0], key_states.shape[1], key_states.shape[-1]
            # token-major: every row and head of the first new token, then the next token ...
            self.keys = torch.cat([self.keys, key_states.permute(2, 0, 1, 3).reshape(n_new * b * h, d)])
            self.values = torch.cat([self.values, value_states.permute(2, 0, 1, 3).reshape(n_new * b * h, d)])
            dev = self.head.device
            self.head = torch.cat([self.head, torch.arange(h, device=dev).repeat(n_new * b)])
            self.row = torch.cat([self.row, torch.arange(b, device=dev).repeat_interleave(h).repeat(n_new)])
            self.pos = torch.cat([self.pos, self.seen + torch.arange(n_new, device=dev).repeat_interleave(b * h)])
        self.seen += n_new
        return self.keys, self.values

    def compress(self, keep) -> None:
        """Keep, for row b and KV head h, the columns keep[b][h] (1-D LongTensor); a list of heads alone
        means row 0 of a batch of one. Switches to the flat store."""
        if self.flat:
            raise RuntimeError("layer already compressed")
        if keep and isinstance(keep[0], torch.Tensor):
            keep = [keep]
        if len(keep) != self.keys.shape[0]:
            raise RuntimeError(f"compress got {len(keep)} rows for a batch of {self.keys.shape[0]}")
        ks, vs, hs, rs, ps = [], [], [], [], []
        for b, heads in enumerate(keep):
            for h, idx in enumerate(heads):
                idx = idx.to(self.keys.device).sort().values
                ks.append(self.keys[b, h, idx])
                vs.append(self.values[b, h, idx])
                hs.append(torch.full_like(idx, h))
                rs.append(torch.full_like(idx, b))
                ps.append(idx)
        self.keys, self.values = torch.cat(ks), torch.cat(vs)
        self.head, self.row, self.pos = torch.cat(hs), torch.cat(rs), torch.cat(ps)
        self.flat = True

    def head_lengths(self, row: int = 0) -> list[int]:
        """Tokens held per KV head of batch row `row` (padding columns included while dense)."""
        if not self.is_initialized:
            return []
        if not self.flat:
            return [int(self.keys.shape[-2])] * self.n_heads
        return torch.bincount(self.head[self.row == row], minlength=self.n_heads).tolist()

    def entries(self) -> int:
        """KV entries held, all rows and heads."""
        if not self.is_initialized:
            return 0
        return int(self.head.numel()) if self.flat else int(self.keys.shape[0] * self.n_heads * self.keys.shape[-2])

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
        # decode-step reads, summed over layers and steps: KV entries attended, KV entries in the context,
        # bytes of keys/values read, bytes of page metadata read, bytes a full-cache step would read,
        # and the number of decode steps
        self.reads = {"attended": 0, "context": 0, "kv_bytes": 0, "meta_bytes": 0, "context_bytes": 0, "steps": 0}

    def account(self, layer_idx: int, attended: int, context: int, kv_bytes: int, meta_bytes: int = 0) -> None:
        """Record what one layer read for one decode step (all rows and heads together)."""
        r = self.reads
        r["attended"] += attended
        r["context"] += context
        r["kv_bytes"] += kv_bytes
        r["meta_bytes"] += meta_bytes
        keys = self.layers[layer_idx].keys
        r["context_bytes"] += context * 2 * keys.shape[-1] * keys.element_size()
        if layer_idx == 0:
            r["steps"] += 1

    def page_bytes(self) -> int:
        """Bytes of Quest page metadata held (all layers)."""
        return sum(layer.pages.nbytes() for layer in self.layers if layer.pages is not None)

    def update(self, key_states, value_states, layer_idx, *args, **kwargs):
        out = super().update(key_states, value_states, layer_idx, *args, **kwargs)
        _ACTIVE.value = (self, layer_idx)
        self.peak_bytes = max(self.peak_bytes, self.stored_bytes())
        return out

    def head_lengths(self, row: int = 0) -> list[list[int]]:
        """Tokens held per (layer, KV head) for batch row `row`."""
        return [layer.head_lengths(row) for layer in self.layers]

    def stored_bytes(self) -> int:
        """Bytes of keys and values actually held (all layers)."""
        return sum(layer.stored_bytes() for layer in self.layers)

    def stored_entries(self) -> int:
        """KV entries (one key + one value vector per head per token) actually held."""
        return sum(layer.entries() for layer in self.layers)


def flat_attention(query: torch.Tensor, layer: HeadLayer, scaling: float, softcap: float | None = None,
                   sliding_window: int | None = None) -> torch.Tensor:
    """Attention of `query` (B, Hq, T, D) over a flat per-head store; returns (B, T, Hq, D).

    The T queries are the last T tokens seen; each attends to entries of its row and KV head whose
    position is <= its own (causal among the new tokens too), and within `sliding_window` if given.
    """
    n_rows, n_q_heads, t, d = query.shape
    h = layer.n_heads
    g = n_q_heads // h
    q = query.reshape(n_rows, h, g, t, d)
    seg = layer.row * h + layer.head  # one softmax per (row, KV head)
    keys, values = layer.keys, layer.values
    qs = q[layer.row, layer.head]  # (N, G, T, D)
    scores = torch.einsum("ngtd,nd->ngt", qs.float(), keys.float()) * scaling
    if softcap is not None:
        scores = torch.tanh(scores / softcap) * softcap
    qpos = layer.seen - t + torch.arange(t, device=query.device)
    allowed = layer.pos[:, None] <= qpos[None, :]  # (N, T)
    if sliding_window is not None:
        allowed &= layer.pos[:, None] > qpos[None, :] - sliding_window
    scores = scores.masked_fill(~allowed[:, None, :], float("-inf"))
    n = scores.shape[0]
    n_seg = n_rows * h
    idx = seg[:, None, None].expand(n, g, t)
    top = torch.full((n_seg, g, t), float("-inf"), device=query.device).scatter_reduce(
        0, idx, scores, reduce="amax", include_self=True)
    e = torch.exp(scores - top[seg])
    den = torch.zeros((n_seg, g, t), device=query.device).index_add_(0, seg, e)
    p = e / den[seg]
    weighted = p[..., None] * values.float()[:, None, None, :]
    out = torch.zeros((n_seg, g, t, d), device=query.device).index_add_(0, seg, weighted)
    return out.reshape(n_rows, n_q_heads, t, d).transpose(1, 2).to(query.dtype)
