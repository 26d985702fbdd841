"""Quest pages: the key bound, page selection within per-head budgets, sparse decode, batches with left padding."""

import numpy as np
import pytest
import torch

from toolkit.kvcompress.press import KVPress
from toolkit.kvcompress.quest import PageIndex, page_bounds, select_tokens, sparse_decode_attention, upper_bound


@pytest.mark.parametrize("seed", range(20))
def test_page_bound_is_never_below_the_true_max_in_a_page(seed):
    g = torch.Generator().manual_seed(seed)
    page = int(torch.randint(1, 9, (1,), generator=g))
    length = int(torch.randint(1, 60, (1,), generator=g))  # often a partial last page
    keys = torch.randn(2, 3, length, 8, generator=g) * 3
    q = torch.randn(2, 3, 4, 8, generator=g)  # 4 query heads per KV head
    mins, maxs = page_bounds(keys, page)
    bound = upper_bound(q, mins, maxs)  # (2, 3, 4, pages)
    dots = torch.einsum("bhgd,bhld->bhgl", q, keys)
    for p in range(bound.shape[-1]):
        true_max = dots[..., p * page:(p + 1) * page].amax(-1)
        assert (bound[..., p] >= true_max - 1e-5).all()
    if page == 1:  # a one-token page is its own min and max: the bound is exact
        assert torch.allclose(bound, dots, atol=1e-5)


def test_page_index_refreshes_only_what_grew_and_matches_a_rebuild():
    torch.manual_seed(0)
    keys = torch.randn(1, 2, 37, 4)
    index = PageIndex(8)
    index.refresh(keys[:, :, :20])
    for n in (21, 24, 25, 37):
        index.refresh(keys[:, :, :n])
        lo, hi = page_bounds(keys[:, :, :n], 8)
        assert torch.equal(index.mins, lo) and torch.equal(index.maxs, hi)
    assert index.nbytes() == 2 * lo.numel() * 4


def test_selection_reads_the_tail_and_each_heads_best_pages():
    length, page, recent = 70, 8, 64
    bound = torch.zeros(1, 2, 9)
    bound[0, 0, 3], bound[0, 0, 1] = 5.0, 4.0  # head 0 prefers pages 3 then 1
    bound[0, 1, 7] = 9.0  # page 7 (tokens 56-63) starts before the tail (64-69): a candidate
    bound[0, 1, 8] = 99.0  # page 8 lies inside the tail: read anyway, never a candidate
    n_pages = torch.tensor([2, 1])
    mask = select_tokens(bound, n_pages, length, page, recent)
    want0 = set(range(24, 32)) | set(range(8, 16)) | set(range(64, 70))
    assert set(mask[0, 0].nonzero()[:, 0].tolist()) == want0
    assert set(mask[0, 1].nonzero()[:, 0].tolist()) == set(range(56, 70))
    assert (mask.sum(-1) == n_pages * page + length - recent).all()
    valid = torch.ones(1, length, dtype=torch.bool)
    valid[0, :32] = False  # left padding: its pages are never read
    masked = select_tokens(bound, n_pages, length, page, recent, valid)
    assert not masked[0, :, :32].any() and masked[0, 0, 32:64].sum() == 2 * page


def test_sparse_decode_equals_dense_attention_over_the_selected_tokens():
    torch.manual_seed(2)
    q, k, v = torch.randn(2, 4, 1, 8), torch.randn(2, 2, 30, 8), torch.randn(2, 2, 30, 8)
    mask = torch.rand(2, 2, 30) < 0.4
    mask[..., -1] = True
    out = sparse_decode_attention(q, k, v, mask, 0.35, softcap=20.0)
    kk, vv = k.repeat_interleave(2, 1), v.repeat_interleave(2, 1)
    logits = torch.tanh(q @ kk.transpose(-1, -2) * 0.35 / 20.0) * 20.0
    logits = logits.masked_fill(~mask.repeat_interleave(2, 1)[:, :, None, :], float("-inf"))
    ref = (torch.softmax(logits, -1) @ vv).transpose(1, 2)
    assert torch.allclose(out, ref, atol=1e-5)


def _gen(model, ids, mask, press=None, n=6):
    kwargs = dict(max_new_tokens=n, min_new_tokens=n, do_sample=False, output_logits=True,
                  return_dict_in_generate=True, attention_mask=mask, pad_token_id=0)
    with torch.no_grad():
        if press is None:
            return model.generate(ids, **kwargs)
        with press(model):
            return model.generate(ids, **kwargs)


@pytest.mark.parametrize("method", ["quest", "headkv+quest"])
def test_quest_with_a_budget_over_the_context_is_the_full_cache_and_below_it_reads_less(gqa_model, method):
    torch.manual_seed(1)
    ids = torch.randint(1, 64, (1, 90))
    ones = torch.ones_like(ids)
    ref = _gen(gqa_model, ids, ones)
    big = KVPress(method, budget=500, head_scores=np.ones((2, 4)))
    out = _gen(gqa_model, ids, ones, big)
    assert torch.equal(out.sequences, ref.sequences)
    assert all(torch.equal(a, b) for a, b in zip(out.logits, ref.logits, strict=True))
    scores = np.array([[4.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    # one page set per KV head, no page minimum, no dense layers: the budget is a hard cap
    small = KVPress(method, budget=24, head_scores=scores, page_size=8, gqa="kv", min_pages=0, dense_layers=0)
    _gen(gqa_model, ids, ones, small)
    reads = small.last_cache.reads
    assert reads["steps"] == 5 and reads["context"] == sum(2 * 2 * (91 + i) for i in range(5))
    # never over budget (page rounding only reads less), besides the tokens generated since the prompt
    assert reads["attended"] <= sum((24 + i + 1) * 2 * 2 for i in range(5))
    assert reads["meta_bytes"] > 0 and small.last_cache.stored_entries() == 2 * 2 * 95  # nothing evicted


@pytest.mark.parametrize("method", ["snapkv", "headkv", "quest", "headkv+quest"])
def test_a_left_padded_batch_decodes_each_row_as_if_alone(gqa_model, method):
    torch.manual_seed(4)
    a, b = torch.randint(1, 64, (1, 72)), torch.randint(1, 64, (1, 56))
    batch = torch.cat([a, torch.cat([torch.zeros(1, 16, dtype=torch.long), b], 1)])
    mask = torch.ones_like(batch)
    mask[1, :16] = 0  # a whole number of pages, so both rows see the same page boundaries

    def press():
        return KVPress(method, budget=28 if "quest" in method else 20, head_scores=np.ones((2, 4)), page_size=8)

    both = _gen(gqa_model, batch, mask, press())
    for row, ids in ((0, a), (1, b)):
        alone = _gen(gqa_model, ids, torch.ones_like(ids), press())
        assert torch.equal(both.sequences[row, 72:], alone.sequences[0, ids.shape[1]:])
        for x, y in zip(both.logits, alone.logits, strict=True):
            assert torch.allclose(x[row], y[0], atol=1e-4)


def _reference_pages(query, keys, chunk, token_budget):
    """Quest's own selection for one decode query (evaluation/quest_attention.py): keys repeated to the query
    heads, the sign trick for the per-chunk bound, top max(3, budget // chunk) chunks per query head."""
    group = query.shape[1] // keys.shape[1]
    k = keys.repeat_interleave(group, 1)
    q = query[:, :, None, :]
    sign = torch.where(q > 0, 1.0, -1.0)
    chunk_max = (k * sign).reshape(*k.shape[:2], -1, chunk, k.shape[-1]).amax(-2)  # (B, Hq, chunks, D)
    weight = ((q * sign) * chunk_max).sum(-1)  # (B, Hq, chunks)
    n = min(max(3, token_budget // chunk), weight.shape[-1])
    return [[set(row.topk(n).indices.tolist()) for row in b] for b in weight]


def test_quest_bound_and_page_choice_by_hand():
    # one KV head, two query heads, pages of two 2-d keys; U = sum_i max(q_i m_i, q_i M_i) worked out by hand
    keys = torch.tensor([[[[1., 0.], [0., 1.], [-2., 1.], [1., -1.], [0., 2.5], [0., 2.], [3., 0.], [2., 0.]]]])
    mins, maxs = page_bounds(keys, 2)
    q = torch.tensor([[[[1., 0.], [-1., 1.]]]])  # (B, H, group, D)
    bound = upper_bound(q, mins, maxs)[0, 0]
    assert bound.tolist() == [[1., 1., 0., 3.], [1., 3., 2.5, -2.]]
    # per query head (the reference): head a reads page 3, head b page 1; per KV head the summed bound picks 1
    mask = select_tokens(bound[None], torch.tensor([1, 1]), 8, 2, recent=8)
    assert mask[0, 0].nonzero()[:, 0].tolist() == [6, 7] and mask[0, 1].nonzero()[:, 0].tolist() == [2, 3]
    summed = select_tokens(bound.sum(0)[None, None], torch.tensor([1]), 8, 2, recent=8)
    assert summed[0, 0].nonzero()[:, 0].tolist() == [2, 3]


def test_pages_to_read_has_the_reference_minimum():
    from toolkit.kvcompress.quest import pages_to_read

    budgets = torch.tensor([20, 40, 128, 9])
    # (budget - window) // page, at least 3: KV 20 with pages of 16 reads 3 pages, not 0
    assert pages_to_read(budgets, 8, 16, 3).tolist() == [3, 3, 7, 3]
    assert pages_to_read(budgets, 8, 16, 0).tolist() == [0, 2, 7, 0]


@pytest.mark.parametrize("seed", range(5))
def test_per_query_head_pages_match_the_reference_selection_on_a_gqa_cache(seed):
    g = torch.Generator().manual_seed(seed)
    keys = torch.randn(1, 2, 64, 8, generator=g)  # a GQA layer: 2 KV heads
    query = torch.randn(1, 4, 8, generator=g)  # 4 query heads
    mins, maxs = page_bounds(keys, 8)
    bound = upper_bound(query.reshape(1, 2, 2, 8), mins, maxs).flatten(1, 2)  # (B, Hq, pages)
    mask = select_tokens(bound, torch.full((4,), 3), 64, 8, recent=64)
    ref = _reference_pages(query, keys, 8, 20)  # budget 20 < 3 pages of 8: the minimum of 3 applies
    for h in range(4):
        pages = set((mask[0, h].nonzero()[:, 0] // 8).tolist())
        assert pages == ref[0][h]


def test_quest_reads_the_first_two_layers_densely_by_default(gqa_model):
    assert KVPress("quest", budget=24).dense_layers == 2
    assert KVPress("headkv+quest", budget=24, head_scores=np.ones((2, 4))).dense_layers == 0
    torch.manual_seed(1)
    ids = torch.randint(1, 64, (1, 90))
    press = KVPress("quest", budget=24, page_size=8)  # the model has 2 layers: both dense, identical to full
    out = _gen(gqa_model, ids, torch.ones_like(ids), press)
    ref = _gen(gqa_model, ids, torch.ones_like(ids))
    assert torch.equal(out.sequences, ref.sequences)
    assert press.last_cache.reads["attended"] == press.last_cache.reads["context"]
    one = KVPress("quest", budget=24, page_size=8, dense_layers=1)
    _gen(gqa_model, ids, torch.ones_like(ids), one)
    assert one.last_cache.reads["attended"] < one.last_cache.reads["context"]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_narrow_page_bounds_round_outward_and_stay_upper_bounds(dtype):
    from toolkit.kvcompress.quest import round_outward

    g = torch.Generator().manual_seed(7)
    keys = torch.randn(2, 2, 40, 16, generator=g) * 3
    q = torch.randn(2, 2, 3, 16, generator=g)
    mins, maxs = page_bounds(keys, 8)
    lo, hi = round_outward(mins, maxs, dtype)
    assert lo.dtype == dtype and (lo.float() <= mins).all() and (hi.float() >= maxs).all()
    bound = upper_bound(q, lo, hi)
    dots = torch.einsum("bhgd,bhld->bhgl", q, keys)
    for p in range(bound.shape[-1]):
        assert (bound[..., p] >= dots[..., p * 8:(p + 1) * 8].amax(-1)).all()
    index = PageIndex(8, dtype)
    index.refresh(keys)
    assert index.nbytes() == 2 * lo.numel() * 2  # half the float32 metadata


def test_page_step_on_a_gqa_layer_reads_each_query_heads_own_pages(gqa_model):
    """A GQA config from transformers (4 query heads, 2 KV heads): the decode step equals dense attention in
    which each query head sees the window plus its own top pages by the reference's selection."""
    from types import SimpleNamespace

    cfg = gqa_model.config
    d = cfg.hidden_size // cfg.num_attention_heads
    g = torch.Generator().manual_seed(3)
    keys, values = torch.randn(1, 2, 64, d, generator=g), torch.randn(1, 2, 64, d, generator=g)
    query = torch.randn(1, 4, 1, d, generator=g)
    layer = SimpleNamespace(keys=keys, values=values, pages=None, prompt_length=64, seen=64, flat=False, n_heads=2)
    cache = SimpleNamespace(reads=[], account=lambda *a: cache.reads.append(a))
    press = KVPress("quest", budget=20, page_size=8, dense_layers=0, page_meta="keys")
    press._budgets = press.static_budgets(cfg.num_hidden_layers, 2, 4)
    out = press.page_step(cache, 1, query, layer, 0.25, None)
    # the reference picks max(3, 12 // 8) = 3 pages per query head among the 7 pages before the 8-token window
    ref_pages = _reference_pages(query[:, :, 0], keys[:, :, :56], 8, 12)
    kk, vv = keys.repeat_interleave(2, 1), values.repeat_interleave(2, 1)
    for h in range(4):
        cols = sorted({c for p in ref_pages[0][h] for c in range(p * 8, p * 8 + 8)} | set(range(56, 64)))
        p = torch.softmax(query[0, h, 0] @ kk[0, h, cols].T * 0.25, -1)
        assert torch.allclose(out[0, 0, h], p @ vv[0, h, cols], atol=1e-5)
    pages_a, pages_b = ref_pages[0][0], ref_pages[0][1]  # two query heads of KV head 0
    loaded = len(pages_a | pages_b) * 8 + 8
    assert pages_a != pages_b and cache.reads[0][1] >= loaded  # the KV head loads both heads' pages once
