"""The selective mixer equals transformers' MambaMixer; the bottleneck's bits; the query sees only the state."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("mambapy")


def test_mixer_equals_transformers_mamba_mixer():
    from transformers import MambaConfig
    from transformers.models.mamba.modeling_mamba import MambaMixer

    from toolkit.ssm_limits.selective import SelectiveMixer

    torch.manual_seed(0)
    cfg = MambaConfig(hidden_size=24, state_size=6, expand=2, conv_kernel=4, use_mambapy=True, num_hidden_layers=1)
    ref = MambaMixer(cfg, layer_idx=0).eval()
    with torch.no_grad():  # non-default weights everywhere, so a wrong wiring cannot pass
        for p in ref.parameters():
            p.add_(0.1 * torch.randn_like(p))
    mine = SelectiveMixer(24, 6)
    mine.load_from_mamba(ref)
    x = torch.randn(2, 41, 24)
    with torch.no_grad():
        assert torch.allclose(mine(x), ref(x), atol=1e-5)
        assert torch.allclose(mine(x, cut=17), ref(x), atol=1e-5)  # splitting the scan changes nothing


def test_bit_count_and_fano_ceiling():
    from toolkit.ssm_limits.selective import SelectiveLM, fano_ceiling

    lm = SelectiveLM(vocab=10, hidden=16, state=2, channels=12, bits=4)
    assert lm.message_bits() == 12 * 2 * 4
    n = 16
    assert fano_ceiling(n, n * math.log2(n)) == 1.0
    assert fano_ceiling(n, 0) == pytest.approx(1 - (4 - 1) / math.log2(15))
    assert fano_ceiling(n, 16) < fano_ceiling(n, 32) < 1.0


def test_query_reads_the_table_only_through_the_quantized_state():
    import random

    from toolkit.ssm_limits.selective import SelectiveLM
    from toolkit.ssm_limits.sweep import SEP, encode, sample, vocab_for
    torch.manual_seed(1)
    vocab = vocab_for("iterate", 8)
    lm = SelectiveLM(len(vocab), 16, 2, 8, bits=3).eval()
    rng = random.Random(0)
    a, _ = encode("iterate", sample(rng, "iterate", 8, "test"), vocab)
    b, _ = encode("iterate", sample(rng, "iterate", 8, "test"), vocab)
    b[-1] = a[-1]  # same query, different tables
    cut = 2 * 8 + SEP
    assert a[cut - SEP + 1: cut + 1] == [vocab["|"]] * SEP and cut == len(a) - 2
    with torch.no_grad():
        la = lm(torch.tensor([a]), cut)[:, -1]
        state_a = lm.mixer.last_state
        lb = lm(torch.tensor([b]), cut)[:, -1]
        lb_with_a_state = lm(torch.tensor([b]), cut, state_override=state_a)[:, -1]
    assert not torch.allclose(la, lb)
    assert torch.allclose(la, lb_with_a_state, atol=1e-6)  # the conv window after the flush holds no table token
    levels = torch.unique(state_a / lm.quant.scale.view(1, -1, 1))
    assert len(levels) <= 2 ** 3 * 8  # at most 2^p values per channel


def test_quantized_ssm_is_a_finite_automaton():
    pytest.importorskip("automata")
    from toolkit.ssm_limits.automaton import StepSSM, build_dfa, encode

    torch.manual_seed(3)
    model = StepSSM(hidden=8, state=2, channels=2, bits=2).eval()
    dfa, minimal, complete, reachable = build_dfa(model)
    assert complete and len(minimal.states) <= reachable + 1
    strings = ["a" * i + "b" * j for i in range(6) for j in range(6) if i + j] + ["abab", "bbaa", "babab"]
    ids, _, _ = encode(strings)
    with torch.no_grad():
        logits = model.run(ids)
    clear = [(s, bool(logits[i, len(s)] > 0)) for i, s in enumerate(strings) if abs(logits[i, len(s)]) > 1e-4]
    assert clear and all(dfa.accepts_input(s) == says for s, says in clear)
    assert all(minimal.accepts_input(s) == dfa.accepts_input(s) for s in strings)
