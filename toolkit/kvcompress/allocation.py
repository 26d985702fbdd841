"""Per-head KV budgets: how many prompt tokens each (layer, KV head) keeps after prefill.

Every method gets the same average budget `budget` per head ("KV size", window included), so
the totals compare; the window of the last `window` prompt tokens is always kept and counted.
Budgets are integers that sum exactly to the global budget (largest-remainder rounding).
"""

from __future__ import annotations

import numpy as np

METHODS = ("full", "streaming", "snapkv", "pyramidkv", "adakv", "headkv", "quest", "headkv+quest")
PAGE_METHODS = ("quest", "headkv+quest")  # decode-time selection: nothing is evicted, each step reads some pages


def round_preserving_sum(values: np.ndarray, total: int) -> np.ndarray:
    """Integers close to `values` (>= floor) whose sum is exactly `total` (largest remainder)."""
    values = np.asarray(values, dtype=np.float64)
    base = np.floor(values).astype(np.int64)
    short = int(total - base.sum())
    if short > 0:
        order = np.argsort(-(values - base), kind="stable")
        base[order[:short]] += 1
    elif short < 0:
        order = np.argsort(values - base, kind="stable")
        for i in order:
            if short == 0:
                break
            if base[i] > 0:
                base[i] -= 1
                short += 1
    return base


def uniform_budgets(n_layers: int, n_heads: int, budget: int) -> np.ndarray:
    return np.full((n_layers, n_heads), budget, dtype=np.int64)


def pyramid_budgets(n_layers: int, n_heads: int, budget: int, window: int, pyramid_beta: float = 20.0) -> np.ndarray:
    """PyramidKV: selected-token budgets fall linearly with depth, from 2*base - base/beta down to base/beta."""
    base = budget - window
    low = base / pyramid_beta
    high = 2 * base - low
    if n_layers == 1:
        per_layer = np.array([float(base)])
    else:
        per_layer = high - (high - low) * np.arange(n_layers) / (n_layers - 1)
    layer_sel = round_preserving_sum(per_layer, base * n_layers)
    return np.repeat((layer_sel + window)[:, None], n_heads, axis=1)


def headkv_budgets(scores: np.ndarray, budget: int, window: int, beta: float = 1.2,
                   temperature: float = 1.0) -> np.ndarray:
    """HeadKV: each head keeps base - base//beta; a shared pool of (base//beta) per head is split by score.

    `scores` (layers, kv_heads) are head importance scores (retrieval or R2); they are normalized
    to a distribution (after raising to `temperature`). Result includes the window.
    """
    scores = np.clip(np.asarray(scores, dtype=np.float64), 0.0, None)
    n_layers, n_heads = scores.shape
    base = budget - window
    if base < 0:
        raise ValueError(f"budget {budget} is smaller than the window {window}")
    if beta < 1.0:
        raise ValueError(f"beta must be >= 1, got {beta}")
    share = int(base // beta)
    floor = base - share
    weights = scores ** temperature
    if weights.sum() <= 0:
        weights = np.ones_like(weights)
    weights = weights / weights.sum()
    pool = share * n_layers * n_heads
    extra = round_preserving_sum((weights * pool).ravel(), pool).reshape(n_layers, n_heads)
    return floor + extra + window


def adakv_layer_budgets(layer_scores, budget: int, window: int, floor_ratio: float = 0.2):
    """Ada-KV within one layer: a floor per head, the rest by a top-k over all heads' token scores.

    `layer_scores` is a torch tensor (kv_heads, n_candidates) of pooled window-attention scores.
    Returns a numpy int array (kv_heads,) of selected-token counts (window excluded).
    """
    import torch

    n_heads, n_cand = layer_scores.shape
    base = min(budget - window, n_cand)
    total = base * n_heads
    k = min(total, n_heads * n_cand)
    top = torch.topk(layer_scores.reshape(-1).float(), k).indices // n_cand
    counts = torch.bincount(top, minlength=n_heads).cpu().numpy().astype(np.float64)
    floor = floor_ratio * base
    want = counts * (1 - floor_ratio) + floor
    out = round_preserving_sum(want, total)
    # a head cannot keep more candidates than exist; hand the overflow to heads with room
    over = np.maximum(out - n_cand, 0)
    out = np.minimum(out, n_cand)
    spare = int(over.sum())
    for i in np.argsort(-counts, kind="stable"):
        if spare == 0:
            break
        room = n_cand - out[i]
        take = min(room, spare)
        out[i] += take
        spare -= take
    return out
