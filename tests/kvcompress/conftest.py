"""Tiny Llama models built from configs (GQA: 4 query heads, 2 KV heads) for kvcompress tests."""

from __future__ import annotations

import pytest


def tiny_model(n_layers: int = 2, attn: str = "eager", seed: int = 0, vocab: int = 64):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=vocab, hidden_size=64, intermediate_size=128, num_hidden_layers=n_layers,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024)
    config._attn_implementation = attn
    return LlamaForCausalLM(config).eval()


@pytest.fixture(scope="module")
def gqa_model():
    return tiny_model()


@pytest.fixture(scope="session")
def task_model_dir(tmp_path_factory):
    """A random-weight model over the task vocabulary, saved with its tokenizer (for CLI/scoring tests)."""
    import torch
    from transformers import LlamaForCausalLM

    from toolkit.kvcompress.tasks import build_tokenizer
    from toolkit.kvcompress.train import model_config

    torch.manual_seed(0)
    out = tmp_path_factory.mktemp("kvc-model")
    LlamaForCausalLM(model_config(n_layers=2, n_heads=4, n_kv_heads=2, hidden=64)).save_pretrained(out)
    build_tokenizer().save_pretrained(out)
    return out
