"""Every supported family (GQA, sliding windows, soft-capping, local/global layers) under every kind of method."""

import numpy as np
import pytest
import torch

from tests.kvcompress.families import FAMILIES, family_model, greedy
from toolkit.kvcompress.press import KVPress

SLIDING = {"mistral", "gemma2", "gemma3"}


@pytest.mark.parametrize("family", FAMILIES)
def test_family_matches_the_full_cache_with_a_large_budget_and_reads_less_with_a_small_one(family):
    model = family_model(family)
    torch.manual_seed(1)
    ids = torch.randint(3, 64, (1, 60))
    ref = greedy(model, ids, n=5)
    scores = np.ones((2, 4))
    for method in ("full", "snapkv", "headkv", "quest", "headkv+quest"):
        out = greedy(model, ids, KVPress(method, budget=500, head_scores=scores), n=5)
        assert torch.equal(out.sequences, ref.sequences), method  # token for token
        for a, b in zip(out.logits, ref.logits, strict=True):
            if family in SLIDING:  # the reference cache crops the window, ours masks it: same math, other sums
                assert torch.allclose(a, b, atol=1e-5), method
            else:
                assert torch.equal(a, b), method
    for method, gqa in (("headkv", "kv"), ("headkv+quest", "kv"), ("headkv+quest", "query")):
        press = KVPress(method, budget=20, head_scores=scores, page_size=4, gqa=gqa)
        out = greedy(model, ids, press, n=5)
        assert out.sequences.shape == ref.sequences.shape
        assert all(torch.isfinite(x).all() for x in out.logits)
        reads = press.last_cache.reads
        # budgets cover the prompt; each decode step adds its own token; per query head, each of the 2 query
        # heads of a KV head reads its own 3 pages, so the KV head loads at most 2 x 12 + 8 + 4 tokens
        per_head = 20 + 4 if gqa == "kv" else 2 * 12 + 8 + 4
        assert reads["steps"] == 4 and reads["attended"] <= per_head * 2 * 2 * 4
        assert reads["attended"] < reads["context"] / (2 if gqa == "kv" else 1)
    assert model.config._attn_implementation == "eager"
