"""Per-head KV budgets, as a context manager around generation: prefill compression or decode-time pages.

    press = KVPress("headkv", budget=64, head_scores=scores)
    with press(model):
        model.generate(input_ids, attention_mask=mask, max_new_tokens=8)
    press.last_cache.head_lengths()

Inside the context, the model runs attention through `kvcompress` (registered in transformers'
AttentionInterface, with the model's own masks: padding, sliding windows). Prefill uses the model's
own eager or sdpa kernel with full KV. Prefill methods then cut each layer's cache per KV head (window
of the last `window` prompt tokens always kept) and decoding reads the flat per-head store. Page methods
(quest, headkv+quest) keep the whole cache and, at every decode step, read the window and the pages
whose key bound is highest for the current query (see quest.py). Batches may be left-padded: padding
is never kept or read. Supported families are listed in SUPPORTED_FAMILIES.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field

import numpy as np

from toolkit.core.errors import InputError
from toolkit.kvcompress.allocation import (
    METHODS,
    PAGE_METHODS,
    adakv_layer_budgets,
    headkv_budgets,
    pyramid_budgets,
    uniform_budgets,
)

# model_type values whose attention modules follow the Llama layout (module.layer_idx, module.scaling, an
# eager_attention_forward in the modeling file, rotary keys before the cache update)
SUPPORTED_FAMILIES = ("llama", "mistral", "qwen2", "qwen3", "gemma2", "gemma3_text", "phi3")
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
    impl = config._attn_implementation or "eager"
    if impl == IMPL_NAME:
        impl = _BASE.get(id(config), "eager")
    if impl not in SUPPORTED_ATTENTION:
        raise InputError(f"attention implementation '{impl}' is not supported by kvcompress "
                         f"(supported: {', '.join(SUPPORTED_ATTENTION)}); use attn_implementation='eager'")
    return impl


def _causal_mask(t: int, s: int, dtype, device, sliding_window: int | None = None):
    import torch

    q = torch.arange(s - t, s, device=device)[:, None]
    k = torch.arange(s, device=device)[None, :]
    hidden = k > q
    if sliding_window is not None:
        hidden |= k <= q - sliding_window
    mask = torch.zeros((t, s), dtype=dtype, device=device)
    return mask.masked_fill(hidden, torch.finfo(dtype).min)[None, None]


def _dense_mask(attention_mask, base: str, t: int, s: int, dtype, device, sliding_window):
    """The mask the base kernel expects, from the model's (bool or None: see _register) mask."""
    import torch

    if attention_mask is None:
        if base == "sdpa" or t == 1 and (sliding_window is None or s <= sliding_window):
            return None  # sdpa is causal by itself; one query sees everything
        return _causal_mask(t, s, dtype, device, sliding_window)
    if attention_mask.dtype == torch.bool and base == "eager":
        return torch.zeros(attention_mask.shape, dtype=dtype, device=device).masked_fill(
            ~attention_mask, torch.finfo(dtype).min)
    return attention_mask


def _family_eager(module):
    """The eager attention of the module's own modeling file (Gemma's soft-capping lives there)."""
    fn = getattr(sys.modules[type(module).__module__], "eager_attention_forward", None)
    if fn is None:
        from transformers.models.llama.modeling_llama import eager_attention_forward as fn
    return fn


def kvcompress_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    """Attention function registered as 'kvcompress': dense prefill (then compress), flat per-head decode,
    or a decode step that reads selected pages."""
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

    from toolkit.kvcompress.cache import HeadCache, flat_attention, last_updated

    scaling = module.scaling if scaling is None else scaling
    softcap, sliding = kwargs.get("softcap"), kwargs.get("sliding_window")
    cache, layer_idx = last_updated()
    ours = isinstance(cache, HeadCache) and layer_idx == module.layer_idx
    layer = cache.layers[layer_idx] if ours else None
    press = cache.press if ours else None
    t = query.shape[-2]
    if layer is not None and layer.flat:
        if t == 1:
            cache.account(layer_idx, layer.entries(), press.context_entries(layer), layer.stored_bytes())
        return flat_attention(query, layer, scaling, softcap, sliding), None
    if t == 1 and press is not None and press.method in PAGE_METHODS and sliding is None:
        out = press.page_step(cache, layer_idx, query, layer, scaling, softcap)
        if out is not None:
            return out, None
    base = _BASE.get(id(module.config), "eager")
    fn = ALL_ATTENTION_FUNCTIONS["sdpa"] if base == "sdpa" else _family_eager(module)
    s = key.shape[-2]
    mask = _dense_mask(attention_mask, base, t, s, query.dtype, query.device, sliding)
    out, weights = fn(module, query, key, value, mask, scaling=scaling, dropout=dropout, **kwargs)
    if ours and t == 1 and press is not None:
        read = press.context_entries(layer) if sliding is None else press.context_entries(layer, sliding)
        cache.account(layer_idx, read, press.context_entries(layer), read * 2 * key.shape[-1] * key.element_size())
    if ours and press is not None and not layer.prefilled:
        layer.prefilled = True
        press.compress_layer(module, layer_idx, query, key, layer, sliding)
    return out, weights


def _register() -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(IMPL_NAME, kvcompress_attention)
    AttentionMaskInterface.register(IMPL_NAME, sdpa_mask)  # boolean masks (None when plainly causal)


@dataclass
class KVPress:
    """A per-head KV method with an average per-head budget (window included)."""

    method: str = "snapkv"
    budget: int = 128
    window: int = 8
    kernel: int = 7
    head_scores: object = None  # (layers, query heads) array for headkv and headkv+quest
    beta: float = 1.2
    temperature: float = 1.0
    sinks: int = 4
    pyramid_beta: float = 20.0
    floor_ratio: float = 0.2
    page_size: int = 8  # tokens per page (quest; chosen on validation seeds, see assets/kvcompress/README.md)
    min_pages: int = 3  # every head reads at least this many pages (the reference's max(3, budget // page))
    # the first layers read every page; None: the reference's 2 for quest, 0 for headkv+quest (HeadKV's
    # allocation already gives each head of every layer its budget)
    dense_layers: int | None = None
    gqa: str = "query"  # page selection per query head (the reference) or per KV head ("kv")
    # page bounds' storage: "keys" (the reference: the keys' dtype) or a 16-bit type, rounded outward
    page_meta: str = "bfloat16"
    pinned: tuple = ()  # prompt positions every head keeps first (an oracle for diagnostics)
    last_cache: object = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise InputError(f"unknown method '{self.method}' (expected one of: {', '.join(METHODS)})")
        if self.method != "full" and self.budget <= self.window:
            raise InputError(f"budget {self.budget} must exceed the window {self.window}")
        if self.method.startswith("headkv") and self.head_scores is None:
            raise InputError(f"{self.method} needs head scores (run `reason kvcompress score` first)")
        if self.page_size < 1:
            raise InputError(f"page size {self.page_size} must be >= 1")
        if self.min_pages < 0:
            raise InputError(f"minimum pages {self.min_pages} must be >= 0")
        if self.page_meta not in ("keys", "bfloat16", "float16"):
            raise InputError(f"page metadata '{self.page_meta}': expected keys, bfloat16 or float16")
        if self.gqa not in ("query", "kv"):
            raise InputError(f"page selection '{self.gqa}': expected query or kv")
        if self.dense_layers is None:
            self.dense_layers = 2 if self.method == "quest" else 0
        if self.dense_layers < 0:
            raise InputError(f"dense layers {self.dense_layers} must be >= 0")
        self._budgets = None
        self._valid = None  # (B, prompt length) bool: real tokens of a left-padded batch

    # ---- budgets -------------------------------------------------------------------------------
    def static_budgets(self, n_layers: int, n_kv_heads: int, n_q_heads: int) -> np.ndarray | None:
        """Per (layer, KV head) budgets known before seeing the prompt (None for adakv/full)."""
        if self.method in ("snapkv", "streaming", "quest"):
            return uniform_budgets(n_layers, n_kv_heads, self.budget)
        if self.method == "pyramidkv":
            return pyramid_budgets(n_layers, n_kv_heads, self.budget, self.window, self.pyramid_beta)
        if self.method in ("headkv", "headkv+quest"):
            scores = np.asarray(self.head_scores, dtype=np.float64)
            if scores.shape != (n_layers, n_q_heads):
                raise InputError(f"head scores have shape {scores.shape}, model has {(n_layers, n_q_heads)}")
            group = n_q_heads // n_kv_heads
            kv_scores = scores.reshape(n_layers, n_kv_heads, group).sum(-1)
            return headkv_budgets(kv_scores, self.budget, self.window, self.beta, self.temperature)
        return None

    def _layer_budgets(self, module, n_kv: int, n_q: int) -> np.ndarray | None:
        if self._budgets is None:
            self._budgets = self.static_budgets(module.config.num_hidden_layers, n_kv, n_q)
        return self._budgets

    # ---- what a decode step could read ---------------------------------------------------------
    def valid_columns(self, n_rows: int, seen: int):
        """(B, seen) bool: prompt padding False, everything else (prompt and generated tokens) True."""
        import torch

        if self._valid is None:
            return None
        grown = torch.ones(n_rows, seen - self._valid.shape[1], dtype=torch.bool, device=self._valid.device)
        return torch.cat([self._valid, grown], dim=1)

    def context_entries(self, layer, limit: int | None = None) -> int:
        """KV entries (all rows and heads) of the real context a decode step attends over, at most `limit` each."""
        seen = layer.seen
        rows = layer.keys.shape[0] if not layer.flat else int(layer.row.max()) + 1
        if self._valid is None:
            real = rows * seen if limit is None else rows * min(seen, limit)
        else:
            valid = self.valid_columns(rows, seen)
            real = int(valid[:, -limit:].sum() if limit is not None else valid.sum())
        return real * layer.n_heads

    # ---- decode-time page selection (quest) ----------------------------------------------------
    def page_step(self, cache, layer_idx: int, query, layer, scaling: float, softcap):
        """One decode step over selected pages, or None when every head's budget covers the context."""
        import torch

        from toolkit.kvcompress.quest import (
            PageIndex,
            pages_to_read,
            select_tokens,
            sparse_decode_attention,
            upper_bound,
        )

        keys, values = layer.keys, layer.values
        n_rows, n_kv, seen, d = keys.shape
        budgets = torch.as_tensor(self._budgets[layer_idx], dtype=torch.long)
        if layer_idx < self.dense_layers or bool((budgets >= seen).all()):
            return None  # the dense kernel: identical to the full cache
        if layer.pages is None:
            meta = None if self.page_meta == "keys" else getattr(torch, self.page_meta)
            layer.pages = PageIndex(self.page_size, meta)
        layer.pages.refresh(keys)
        q = query[:, :, -1].reshape(n_rows, n_kv, -1, d)
        group = q.shape[2]
        bound = upper_bound(q, layer.pages.mins, layer.pages.maxs)  # (B, H, group, pages)
        n_pages = pages_to_read(budgets, self.window, self.page_size, self.min_pages)
        if self.gqa == "query" and group > 1:  # each query head its own pages, under its KV head's budget
            bound, n_pages = bound.flatten(1, 2), n_pages.repeat_interleave(group)
        else:
            bound = bound.sum(2)
        valid = self.valid_columns(n_rows, seen)
        # like the prefill methods, every head keeps the prompt's window and what has been generated since
        recent = max(layer.prompt_length - self.window, 0)
        mask = select_tokens(bound, n_pages, seen, self.page_size, recent, valid)
        # a kernel loads each KV head's tokens once for all the query heads that read them
        attended = int(mask.reshape(n_rows, n_kv, -1, seen).any(2).sum())
        elem = keys.element_size()
        cache.account(layer_idx, attended, self.context_entries(layer), attended * 2 * d * elem,
                      layer.pages.nbytes())
        return sparse_decode_attention(query, keys, values, mask, scaling, softcap)

    # ---- prefill selection ---------------------------------------------------------------------
    def window_scores(self, query, key, scaling: float, softcap=None):
        """SnapKV scores (kv_heads, n - window): window queries' mean attention, max-pooled, GQA-averaged."""
        import torch
        import torch.nn.functional as F

        q = query[0, :, -self.window:, :].float()  # (Hq, w, D)
        k = key[0].float()  # (H, n, D)
        hq, h = q.shape[0], k.shape[0]
        g = hq // h
        k = k.repeat_interleave(g, dim=0)
        logits = torch.einsum("hwd,hnd->hwn", q, k) * scaling
        if softcap is not None:
            logits = torch.tanh(logits / softcap) * softcap
        logits = logits + _causal_mask(self.window, k.shape[1], logits.dtype, logits.device)[0]
        p = torch.softmax(logits, dim=-1)
        s = p[:, :, : k.shape[1] - self.window].mean(dim=1)  # (Hq, n - w)
        if self.kernel > 1:
            s = F.max_pool1d(s[:, None, :], kernel_size=self.kernel, padding=self.kernel // 2, stride=1)[:, 0]
        return s.reshape(h, g, -1).mean(dim=1)

    def compress_layer(self, module, layer_idx: int, query, key, layer, sliding_window=None) -> None:
        """Cut every row's cache to its per-head budgets (nothing happens when no head has to evict)."""
        import torch

        if self.method == "full" or self.method in PAGE_METHODS:
            if self.method in PAGE_METHODS:
                self._layer_budgets(module, key.shape[1], query.shape[1])
            return
        n_rows, n = key.shape[0], key.shape[-2]
        valid = self.valid_columns(n_rows, n)
        keeps, evicts = [], False
        for b in range(n_rows):
            cols = torch.arange(n, device=key.device) if valid is None else valid[b].nonzero()[:, 0]
            keep, evict = self._select_row(module, layer_idx, query[b:b + 1, :, cols], key[b:b + 1, :, cols],
                                           sliding_window)
            keeps.append([cols[idx] for idx in keep])
            evicts |= evict
        if evicts:
            layer.compress(keeps)

    def _select_row(self, module, layer_idx: int, query, key, sliding_window):
        """(kept indices per KV head, whether anything is evicted) for one row of real tokens."""
        import torch

        n = key.shape[-2]
        n_kv, n_q = key.shape[1], query.shape[1]
        budgets = self._layer_budgets(module, n_kv, n_q)
        device = key.device
        everything = [torch.arange(n, device=device) for _ in range(n_kv)]
        window_idx = torch.arange(max(n - self.window, 0), n, device=device)
        cand = max(n - self.window, 0)
        if self.method == "streaming":
            keep = []
            for h in range(n_kv):
                b = int(budgets[layer_idx, h])
                if b >= n:
                    keep.append(torch.arange(n, device=device))
                    continue
                sinks = torch.arange(min(self.sinks, b), device=device)
                recent = torch.arange(n - (b - len(sinks)), n, device=device)
                keep.append(torch.cat([sinks, recent]))
            return keep, any(len(k) < n for k in keep)
        if cand == 0:
            return everything, False
        scores = self.window_scores(query, key, module.scaling, getattr(module, "attn_logit_softcapping", None))
        if sliding_window is not None and n > sliding_window:
            scores[:, : n - sliding_window] = -1.0  # out of the layer's window: taken last
        if self.method == "adakv":
            sel = adakv_layer_budgets(scores, self.budget, self.window, self.floor_ratio)
        else:
            sel = np.asarray(budgets[layer_idx]) - self.window
        if self.pinned:
            pin = torch.tensor([p for p in self.pinned if p < cand], dtype=torch.long, device=device)
            scores[:, pin] = float("inf")  # taken first, inside the same per-head budgets
        if all(int(c) >= cand for c in sel):
            return everything, False  # nothing to evict: stay dense (identical to the full cache)
        keep = []
        for h in range(n_kv):
            c = int(min(max(int(sel[h]), 0), cand))
            top = torch.topk(scores[h], c).indices if c > 0 else window_idx[:0]
            keep.append(torch.cat([top, window_idx]))
        return keep, True

    # ---- context manager -----------------------------------------------------------------------
    def new_cache(self):
        from toolkit.kvcompress.cache import HeadCache

        self._budgets = None
        self._valid = None
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

            for name in ("cache", "past_key_values"):
                current = kwargs.get(name)
                if isinstance(current, HeadCache):
                    return args, kwargs
                if current is not None and isinstance(current, Cache) and current.get_seq_length() > 0:
                    raise InputError("kvcompress: generation was started with a non-kvcompress cache")
            kwargs.pop("past_key_values", None)
            kwargs["cache"] = press.new_cache()
            kwargs["use_cache"] = True
            mask = kwargs.get("attention_mask")
            if mask is not None and mask.dim() == 2 and not bool(mask.all()):
                press._valid = mask.bool()
            return args, kwargs

        handle = model.register_forward_pre_hook(pre_hook, with_kwargs=True)
        config._attn_implementation = IMPL_NAME
        try:
            yield self
        finally:
            handle.remove()
            config._attn_implementation = old
