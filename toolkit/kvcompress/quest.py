"""Quest: query-aware page selection at every decode step (Tang et al., ICML 2024).

The whole cache stays (it is the slow-memory copy); it is cut into pages of P tokens and each page
keeps two vectors, the per-channel minimum m and maximum M of its keys. For a query q, no key k in
the page can give more than
    U(q, page) = sum_i max(q_i * m_i, q_i * M_i)   >= q . k
so each query head scores the pages by U and reads its own top-scoring pages (as the reference
implementation does after repeat_kv; `gqa="kv"` instead sums U over the query heads that share a KV
head and reads one set per KV head), besides the tokens every method keeps: the last `window` prompt
tokens and the tokens generated so far. As in the reference, a head reads at least `min_pages` pages
(max(3, budget // page) there) and the first `dense_layers` layers read everything.
"""

from __future__ import annotations

import torch


def page_bounds(keys: torch.Tensor, page: int, start_page: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-channel (min, max) keys of pages start_page.. of `keys` (..., L, D); the last page may be partial."""
    length, d = keys.shape[-2], keys.shape[-1]
    n_pages = -(-length // page)
    k = keys[..., start_page * page:, :]
    pad = (n_pages - start_page) * page - k.shape[-2]
    if pad:  # repeat the last key, which changes neither min nor max
        k = torch.cat([k, k[..., -1:, :].expand(*k.shape[:-2], pad, d)], dim=-2)
    k = k.reshape(*k.shape[:-2], n_pages - start_page, page, d)
    return k.amin(dim=-2), k.amax(dim=-2)


def upper_bound(query: torch.Tensor, mins: torch.Tensor, maxs: torch.Tensor) -> torch.Tensor:
    """U for queries (..., G, D) and pages (..., P, D): (..., G, P), never below any q.k in the page."""
    q = query.float()[..., :, None, :]
    return torch.maximum(q * mins.float()[..., None, :, :], q * maxs.float()[..., None, :, :]).sum(-1)


def round_outward(mins: torch.Tensor, maxs: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """(mins, maxs) stored in a narrower `dtype`, mins rounded down and maxs up: U computed from them is still
    never below q.k, so fewer metadata bytes cost a slightly looser bound and never a missed page."""
    if mins.dtype == dtype or torch.finfo(dtype).bits >= torch.finfo(mins.dtype).bits:
        return mins, maxs
    lo, hi = mins.to(dtype), maxs.to(dtype)
    down, up = lo.float() > mins.float(), hi.float() < maxs.float()
    lo = torch.where(down, torch.nextafter(lo, torch.full_like(lo, float("-inf"))), lo)
    hi = torch.where(up, torch.nextafter(hi, torch.full_like(hi, float("inf"))), hi)
    return lo, hi


class PageIndex:
    """Page metadata of one layer's dense keys (B, H, L, D), refreshed only where keys were appended.

    `meta_dtype` (e.g. torch.bfloat16) stores the per-page bounds narrower than the keys, rounded outward.
    """

    def __init__(self, page: int, meta_dtype: torch.dtype | None = None):
        self.page = page
        self.meta_dtype = meta_dtype
        self.mins = self.maxs = None
        self.length = 0

    def refresh(self, keys: torch.Tensor) -> None:
        length = keys.shape[-2]
        if length == self.length:
            return
        first = self.length // self.page  # the first page that changed (it may have been partial)
        lo, hi = page_bounds(keys, self.page, first)
        if self.meta_dtype is not None:
            lo, hi = round_outward(lo, hi, self.meta_dtype)
        if self.mins is None:
            self.mins, self.maxs = lo, hi
        else:
            self.mins = torch.cat([self.mins[..., :first, :], lo], dim=-2)
            self.maxs = torch.cat([self.maxs[..., :first, :], hi], dim=-2)
        self.length = length

    def nbytes(self) -> int:
        if self.mins is None:
            return 0
        return 2 * self.mins.numel() * self.mins.element_size()


def pages_to_read(budgets: torch.Tensor, window: int, page: int, min_pages: int) -> torch.Tensor:
    """Pages each head reads besides the window: its selected-token budget in whole pages, at least
    `min_pages` (the reference reads max(3, budget // page); here the window is read on top)."""
    return ((budgets - window) // page).clamp(min=min_pages)


def select_tokens(bound: torch.Tensor, n_pages: torch.Tensor, length: int, page: int, recent: int,
                  valid: torch.Tensor | None = None) -> torch.Tensor:
    """Attended-token mask (B, H, L): every token from column `recent` on, then, per head, its n_pages[h]
    best pages by `bound` (B, H, pages) among the pages that start before `recent`.

    `valid` (B, L) marks real (unpadded) tokens; a page of padding only is never read.
    """
    b, h, total = bound.shape
    device = bound.device
    cand = -(-recent // page) if recent > 0 else 0  # pages that start before the always-read tail
    pos = torch.arange(length, device=device)
    mask = (pos >= recent).expand(b, h, length).clone()
    n_sel = n_pages.to(device).clamp(min=0, max=cand)  # (H,)
    k = int(n_sel.max()) if cand else 0
    if k > 0:
        scores = bound[..., :cand].float()
        if valid is not None:
            pad = total * page - length
            v = torch.nn.functional.pad(valid, (0, pad)).reshape(b, total, page).any(-1)[:, None, :cand]
            scores = scores.masked_fill(~v, float("-inf"))
        top = torch.topk(scores, k, dim=-1).indices  # (B, H, k), best first
        keep_rank = (torch.arange(k, device=device)[None, None, :] < n_sel[None, :, None]).expand(b, h, k)
        chosen = torch.zeros(b, h, cand, dtype=torch.bool, device=device)
        chosen.scatter_(-1, top, keep_rank)
        chosen &= torch.isfinite(scores)
        chosen = torch.nn.functional.pad(chosen, (0, total - cand))
        mask |= chosen.repeat_interleave(page, dim=-1)[..., :length]
    if valid is not None:
        mask &= valid[:, None, :]
    return mask


def sparse_decode_attention(query: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, mask: torch.Tensor,
                            scaling: float, softcap: float | None = None) -> torch.Tensor:
    """One decode step reading only the masked tokens: query (B, Hq, 1, D), keys (B, H, L, D) -> (B, 1, Hq, D).

    `mask` is (B, H, L) (one selection per KV head) or (B, Hq, L) (one per query head).

    The selected keys and values are gathered per head (padded to the head with the most), which is
    the data a paged kernel would move; the other tokens are never touched.
    """
    b, hq, _, d = query.shape
    if mask.shape[1] == hq and keys.shape[1] != hq:  # one selection per query head: each reads its own pages
        group = hq // keys.shape[1]
        keys, values = keys.repeat_interleave(group, 1), values.repeat_interleave(group, 1)
    h = keys.shape[1]
    g = hq // h
    counts = mask.sum(-1)  # (B, H)
    k_max = int(counts.max())
    order = torch.argsort((~mask).to(torch.int8), dim=-1, stable=True)[..., :k_max]  # selected first, in order
    ok = torch.arange(k_max, device=query.device)[None, None, :] < counts[..., None]
    idx = order[..., None].expand(b, h, k_max, d)
    k_sel = torch.gather(keys, 2, idx).float()
    v_sel = torch.gather(values, 2, idx).float()
    q = query.reshape(b, h, g, d).float()
    logits = torch.einsum("bhgd,bhkd->bhgk", q, k_sel) * scaling
    if softcap is not None:
        logits = torch.tanh(logits / softcap) * softcap
    logits = logits.masked_fill(~ok[:, :, None, :], float("-inf"))
    p = torch.softmax(logits, dim=-1)
    out = torch.einsum("bhgk,bhkd->bhgd", p, v_sel)
    return out.reshape(b, hq, d)[:, None].to(query.dtype)
