"""Compression at prefill with a per-head budget, as a context manager around generation.

    press = KVPress("headkv", budget=64, head_scores=scores)
    with press(model):
        model.generate(input_ids, max_new_tokens=8)
    press.last_cache.head_lengths()

Inside the context, the model runs attention through `kvcompress` (registered in transformers'
AttentionInterface): prefill uses the model's own eager or sdpa kernel with full KV, then each
layer's cache is cut per KV head (window of the last `window` prompt tokens always kept); decoding
reads the flat per-head store. Supported: batch size 1 (no padding), attention implementations
eager and sdpa, Llama-style decoder families listed in SUPPORTED_FAMILIES.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from toolkit.core.errors import InputError
from toolkit.kvcompress.allocation import (
    METHODS,
    adakv_layer_budgets,
    headkv_budgets,
    pyramid_budgets,
    uniform_budgets,
)

SUPPORTED_FAMILIES = ("llama", "mistral", "qwen2", "qwen3")
SUPPORTED_ATTENTION = ("eager", "sdpa")
IMPL_NAME = "kvcompress"
_BASE = {}  # id(config) -> base attention implementation name


def check_model(model) -> str:
    """Return the base attention implementation, or raise a clear error for unsupported models."""
    config = model.config
    family = getattr(config, "model_type", "?")
    if family not in SUPPORTED_FAMILIES:
        raise InputError(f"model family '{family}' is not supported by kvcompress "
                         f"(supported: {', '.join(SUPPORTED_FAMILIES)})")
    if getattr(config, "sliding_window", None) and getattr(config, "use_sliding_window", True):
        if family == "mistral":
            raise InputError("kvcompress: sliding-window attention models are not supported (set sliding_window=None)")
    impl = config._attn_implementation or "eager"
    if impl == IMPL_NAME:
        impl = _BASE.get(id(config), "eager")
    if impl not in SUPPORTED_ATTENTION:
        raise InputError(f"attention implementation '{impl}' is not supported by kvcompress "
                         f"(supported: {', '.join(SUPPORTED_ATTENTION)}); use attn_implementation='eager'")
    return impl


def _causal_mask(t: int, s: int, dtype, device):
    import torch

    q = torch.arange(s - t, s, device=device)[:, None]
    k = torch.arange(s, device=device)[None, :]
    mask = torch.zeros((t, s), dtype=dtype, device=device)
    return mask.masked_fill(k > q, torch.finfo(dtype).min)[None, None]


def kvcompress_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    """Attention function registered as 'kvcompress': dense prefill (then compress) or flat per-head decode."""
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

    from toolkit.kvcompress.cache import HeadCache, flat_attention, last_updated

    scaling = module.scaling if scaling is None else scaling
    cache, layer_idx = last_updated()
    ours = isinstance(cache, HeadCache) and layer_idx == module.layer_idx
    layer = cache.layers[layer_idx] if ours else None
    if layer is not None and layer.flat:
        return flat_attention(query, layer, scaling), None
    base = _BASE.get(id(module.config), "eager")
    if base == "sdpa":
        fn = ALL_ATTENTION_FUNCTIONS["sdpa"]
    else:
        from transformers.models.llama.modeling_llama import eager_attention_forward as fn
    t, s = query.shape[-2], key.shape[-2]
    mask = _causal_mask(t, s, query.dtype, query.device) if (t > 1 or attention_mask is not None) else None
    out, weights = fn(module, query, key, value, mask, scaling=scaling, dropout=dropout, **kwargs)
    if ours and cache.press is not None and not layer.prefilled:
        layer.prefilled = True
        cache.press.compress_layer(module, layer_idx, query, key, layer)
    return out, weights


def _register() -> None:
    from transformers import AttentionInterface

    AttentionInterface.register(IMPL_NAME, kvcompress_attention)


@dataclass
class KVPress:
    """A prefill compression method with an average per-head budget (window included)."""

    method: str = "snapkv"
    budget: int = 128
    window: int = 8
    kernel: int = 7
    head_scores: object = None  # (layers, query heads) array for headkv
    beta: float = 1.2
    temperature: float = 1.0
    sinks: int = 4
    pyramid_beta: float = 20.0
    floor_ratio: float = 0.2
    pinned: tuple = ()  # prompt positions every head keeps first (an oracle for diagnostics)
    last_cache: object = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise InputError(f"unknown method '{self.method}' (expected one of: {', '.join(METHODS)})")
        if self.method != "full" and self.budget <= self.window:
            raise InputError(f"budget {self.budget} must exceed the window {self.window}")
        if self.method == "headkv" and self.head_scores is None:
            raise InputError("headkv needs head scores (run `reason kvcompress score` first)")
        self._budgets = None

    # ---- budgets -------------------------------------------------------------------------------
    def static_budgets(self, n_layers: int, n_kv_heads: int, n_q_heads: int) -> np.ndarray | None:
        """Per (layer, KV head) budgets known before seeing the prompt (None for adakv/full)."""
        if self.method in ("snapkv", "streaming"):
            return uniform_budgets(n_layers, n_kv_heads, self.budget)
        if self.method == "pyramidkv":
            return pyramid_budgets(n_layers, n_kv_heads, self.budget, self.window, self.pyramid_beta)
        if self.method == "headkv":
            scores = np.asarray(self.head_scores, dtype=np.float64)
            if scores.shape != (n_layers, n_q_heads):
                raise InputError(f"head scores have shape {scores.shape}, model has {(n_layers, n_q_heads)}")
            group = n_q_heads // n_kv_heads
            kv_scores = scores.reshape(n_layers, n_kv_heads, group).sum(-1)
            return headkv_budgets(kv_scores, self.budget, self.window, self.beta, self.temperature)
        return None

    # ---- per-layer selection -------------------------------------------------------------------
    def window_scores(self, query, key, scaling: float):
        """SnapKV scores (kv_heads, n - window): window queries' mean attention, max-pooled, GQA-averaged."""
        import torch
        import torch.nn.functional as F

        q = query[0, :, -self.window:, :].float()  # (Hq, w, D)
        k = key[0].float()  # (H, n, D)
        hq, h = q.shape[0], k.shape[0]
        g = hq // h
        k = k.repeat_interleave(g, dim=0)
        logits = torch.einsum("hwd,hnd->hwn", q, k) * scaling
        logits = logits + _causal_mask(self.window, k.shape[1], logits.dtype, logits.device)[0]
        p = torch.softmax(logits, dim=-1)
        s = p[:, :, : k.shape[1] - self.window].mean(dim=1)  # (Hq, n - w)
        if self.kernel > 1:
            s = F.max_pool1d(s[:, None, :], kernel_size=self.kernel, padding=self.kernel // 2, stride=1)[:, 0]
        return s.reshape(h, g, -1).mean(dim=1)

    def compress_layer(self, module, layer_idx: int, query, key, layer) -> None:
        import torch

        if self.method == "full":
            return
        n = key.shape[-2]
        n_kv, n_q = key.shape[1], query.shape[1]
        if key.shape[0] != 1:
            raise InputError("kvcompress compresses one sequence at a time (batch size 1)")
        n_layers = module.config.num_hidden_layers
        if self._budgets is None:
            self._budgets = self.static_budgets(n_layers, n_kv, n_q)
        device = key.device
        window_idx = torch.arange(max(n - self.window, 0), n, device=device)
        cand = max(n - self.window, 0)
        if self.method == "streaming":
            keep = []
            for h in range(n_kv):
                b = int(self._budgets[layer_idx, h])
                if b >= n:
                    keep.append(torch.arange(n, device=device))
                    continue
                sinks = torch.arange(min(self.sinks, b), device=device)
                recent = torch.arange(n - (b - len(sinks)), n, device=device)
                keep.append(torch.cat([sinks, recent]))
            layer.compress(keep)
            return
        if cand == 0:
            return
        scores = self.window_scores(query, key, module.scaling)  # (H, cand)
        if self.method == "adakv":
            sel = adakv_layer_budgets(scores, self.budget, self.window, self.floor_ratio)
        else:
            sel = np.asarray(self._budgets[layer_idx]) - self.window
        if self.pinned:
            pin = torch.tensor([p for p in self.pinned if p < cand], dtype=torch.long, device=device)
            scores[:, pin] = float("inf")  # taken first, inside the same per-head budgets
        if all(int(c) >= cand for c in sel):
            return  # nothing to evict: stay dense (identical to the full cache)
        keep = []
        for h in range(n_kv):
            c = int(min(max(int(sel[h]), 0), cand))
            top = torch.topk(scores[h], c).indices if c > 0 else window_idx[:0]
            keep.append(torch.cat([top, window_idx]))
        layer.compress(keep)

    # ---- context manager -----------------------------------------------------------------------
    def new_cache(self):
        from toolkit.kvcompress.cache import HeadCache

        self._budgets = None
        self.last_cache = HeadCache(press=self)
        return self.last_cache

    @contextlib.contextmanager
    def __call__(self, model):
        base = check_model(model)
        _register()
        config = model.config
        old = config._attn_implementation
        _BASE[id(config)] = base
        press = self

        def pre_hook(module, args, kwargs):
            from transformers.cache_utils import Cache

            from toolkit.kvcompress.cache import HeadCache

            mask = kwargs.get("attention_mask")
            if mask is not None and mask.dim() == 2 and not bool(mask.all()):
                raise InputError("kvcompress: padded batches are not supported; generate one sequence at a time")
            for name in ("cache", "past_key_values"):
                current = kwargs.get(name)
                if isinstance(current, HeadCache):
                    return args, kwargs
                if current is not None and isinstance(current, Cache) and current.get_seq_length() > 0:
                    raise InputError("kvcompress: generation was started with a non-kvcompress cache")
            kwargs.pop("past_key_values", None)
            kwargs["cache"] = press.new_cache()
            kwargs["use_cache"] = True
            return args, kwargs

        handle = model.register_forward_pre_hook(pre_hook, with_kwargs=True)
        config._attn_implementation = IMPL_NAME
        try:
            yield self
        finally:
            handle.remove()
            config._attn_implementation = old
