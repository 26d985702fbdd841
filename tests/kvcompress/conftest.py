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
    from tests.support.tiny_models import build_kv_task_model

    return build_kv_task_model(tmp_path_factory.mktemp("kvc-model"))
