"""The per-head cache under model.generate: exactness, per-head lengths, RoPE after eviction, errors."""

import numpy as np
import pytest
import torch

from tests.kvcompress.conftest import tiny_model
from tests.kvcompress.families import greedy
from toolkit.core.errors import InputError
from toolkit.kvcompress.press import KVPress


@pytest.fixture(scope="module")
def prompt():
    torch.manual_seed(1)
    return torch.randint(1, 64, (1, 80))


def test_full_and_large_budget_equal_the_full_cache_exactly(gqa_model, prompt):
    ref = greedy(gqa_model, prompt)
    for press in (KVPress("full"), KVPress("snapkv", budget=200), KVPress("headkv", budget=100,
                                                                           head_scores=np.ones((2, 4)))):
        out = greedy(gqa_model, prompt, press)
        assert torch.equal(out.sequences, ref.sequences)
        assert all(torch.equal(a, b) for a, b in zip(out.logits, ref.logits, strict=True))
        assert not press.last_cache.layers[0].flat
        assert press.last_cache.head_lengths() == [[87, 87], [87, 87]]
    assert gqa_model.config._attn_implementation == "eager"  # restored after the context


def test_flat_store_with_everything_kept_matches_dense(gqa_model, prompt):
    class KeepAll(KVPress):
        def compress_layer(self, module, layer_idx, query, key, layer, sliding_window=None):
            layer.compress([torch.randperm(key.shape[-2]) for _ in range(key.shape[1])])

    ref = greedy(gqa_model, prompt)
    press = KeepAll("snapkv", budget=16)
    out = greedy(gqa_model, prompt, press)
    assert press.last_cache.layers[0].flat
    assert torch.equal(out.sequences, ref.sequences)
    for a, b in zip(out.logits, ref.logits, strict=True):
        assert torch.allclose(a, b, atol=1e-5)


def test_per_head_lengths_follow_headkv_budgets(gqa_model, prompt):
    scores = np.zeros((2, 4))
    scores[1, 2], scores[0, 0] = 3.0, 1.0  # query heads 2 -> KV head 1, 0 -> KV head 0
    press = KVPress("headkv", budget=24, head_scores=scores, beta=1.5)
    greedy(gqa_model, prompt, press, n=5)
    from toolkit.kvcompress.allocation import headkv_budgets

    want = headkv_budgets(scores.reshape(2, 2, 2).sum(-1), 24, 8, beta=1.5)
    got = np.array(press.last_cache.head_lengths()) - 4  # 4 decoded tokens appended after prefill
    assert (got == want).all() and want.sum() == 24 * 4
    assert len(set(want.ravel().tolist())) > 1  # really different lengths per head
    layer = press.last_cache.layers[1]
    held = layer.stored_bytes()
    assert held == int(got[1].sum() + 8) * 16 * 2 * 4  # (entries) x head_dim x (K,V) x fp32: no padding
    dense_layer = 2 * 80 * 16 * 2 * 4  # one layer holding the whole 80-token prompt densely
    cache = press.last_cache
    assert cache.stored_bytes() < cache.peak_bytes <= dense_layer + cache.stored_bytes() < 2 * dense_layer


@pytest.mark.parametrize("method", ["snapkv", "pyramidkv", "adakv", "streaming", "headkv"])
def test_rope_positions_after_eviction_match_reference(method):
    """Decode logits with the compressed cache == a from-scratch forward with per-head masks hiding evicted keys."""
    model = tiny_model(n_layers=1, seed=3)
    torch.manual_seed(5)
    ids = torch.randint(1, 64, (1, 70))
    press = KVPress(method, budget=20, head_scores=np.array([[0.1, 0.9, 0.5, 0.2]]))
    out = greedy(model, ids, press, n=6)
    layer = press.last_cache.layers[0]
    assert layer.flat
    seq = out.sequences
    total = seq.shape[1] - 1  # the last token was never fed back
    n = ids.shape[1]
    allowed = torch.zeros(4, total, total, dtype=torch.bool)
    causal = torch.tril(torch.ones(total, total, dtype=torch.bool))
    for kv in range(2):
        kept_prompt = layer.pos[(layer.head == kv) & (layer.pos < n)]
        m = causal.clone()
        m[n:, :n] = False
        m[n:, kept_prompt] = True
        for g in range(2):
            allowed[kv * 2 + g] = m
    mask = torch.zeros(1, 4, total, total).masked_fill(~allowed[None], torch.finfo(torch.float32).min)
    with torch.no_grad():
        ref = model(input_ids=seq[:, :total], attention_mask=mask).logits[0]
    for step, logits in enumerate(out.logits):
        assert torch.allclose(logits[0], ref[n - 1 + step], atol=1e-4), step
    # and a wrong position for new tokens would be caught: the reference with shifted positions differs
    with torch.no_grad():
        shifted = model(input_ids=seq[:, :total], attention_mask=mask,
                        position_ids=torch.cat([torch.arange(n), torch.arange(n, total) - 30])[None]).logits[0]
    assert not torch.allclose(out.logits[-1][0], shifted[total - 1], atol=1e-3)


def test_sdpa_base_gives_same_tokens_as_eager(prompt):
    eager, sdpa = tiny_model(attn="eager"), tiny_model(attn="sdpa")
    p1, p2 = KVPress("snapkv", budget=24), KVPress("snapkv", budget=24)
    a, b = greedy(eager, prompt, p1), greedy(sdpa, prompt, p2)
    assert torch.equal(a.sequences, b.sequences)
    assert p1.last_cache.head_lengths() == p2.last_cache.head_lengths()


def test_unsupported_attention_and_family_are_clear_errors(prompt):
    model = tiny_model()
    model.config._attn_implementation_internal = "flash_attention_2"
    with pytest.raises(InputError, match="attention implementation 'flash_attention_2' is not supported"):
        with KVPress("snapkv", budget=24)(model):
            pass
    from transformers import GPT2Config, GPT2LMHeadModel

    gpt2 = GPT2LMHeadModel(GPT2Config(n_layer=1, n_head=2, n_embd=32, vocab_size=64))
    with pytest.raises(InputError, match="model family 'gpt2' is not supported"):
        with KVPress("snapkv", budget=24)(gpt2):
            pass
    model = tiny_model()
    with pytest.raises(InputError, match="beam search"):
        with KVPress("snapkv", budget=24)(model):
            model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=3, num_beams=2,
                           pad_token_id=0)


def test_bad_press_arguments():
    with pytest.raises(InputError, match="unknown method"):
        KVPress("nope")
    with pytest.raises(InputError, match="must exceed the window"):
        KVPress("snapkv", budget=8)
    with pytest.raises(InputError, match="needs head scores"):
        KVPress("headkv", budget=64)


@pytest.mark.parametrize("method", ["snapkv", "adakv", "headkv"])
def test_pinned_positions_are_kept_by_every_head_within_its_budget(gqa_model, prompt, method):
    pins = (3, 17, 40, 41, 42)
    plain = KVPress(method, budget=16, head_scores=np.ones((2, 4)))
    pinned = KVPress(method, budget=16, head_scores=np.ones((2, 4)), pinned=pins)
    greedy(gqa_model, prompt, plain, n=2)
    greedy(gqa_model, prompt, pinned, n=2)
    assert pinned.last_cache.head_lengths() == plain.last_cache.head_lengths()  # same budgets
    missed = 0
    for layer, ref in zip(pinned.last_cache.layers, plain.last_cache.layers, strict=True):
        assert layer.flat
        for h in range(layer.n_heads):
            assert set(pins) <= set(layer.pos[layer.head == h].tolist())
            missed += not set(pins) <= set(ref.pos[ref.head == h].tolist())
    assert missed > 0  # without pins, selection drops some of them


def test_answer_held_counts_the_best_head():
    from types import SimpleNamespace

    from toolkit.kvcompress.cache import HeadLayer
    from toolkit.kvcompress.evaluate import answer_held

    layer = HeadLayer()
    k = torch.zeros(1, 2, 20, 4)
    layer.update(k, k)
    # head 0 keeps 10 and 11 of the value span [10, 13); head 1 keeps only 12
    layer.compress([torch.tensor([0, 10, 11, 19]), torch.tensor([1, 12, 19])])
    ex = SimpleNamespace(value_span=(10, 13))
    assert answer_held(SimpleNamespace(layers=[layer]), ex) == pytest.approx(2 / 3)
    dense = HeadLayer()
    dense.update(k, k)
    assert answer_held(SimpleNamespace(layers=[layer, dense]), ex) == 1.0  # a layer kept whole
