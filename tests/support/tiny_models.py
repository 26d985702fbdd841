"""Tiny transformers models built from configs with locally built tokenizers (no downloads)."""

from __future__ import annotations

from pathlib import Path

WORDS = ("the a cube is on red blue green yes no answer question what which stack pick place robot arm "
         "gripper table one two three four five six seven eight nine zero").split()


def build_word_tokenizer(words=WORDS):
    """A whitespace word-level fast tokenizer with <pad>/<s>/</s>/<unk>."""
    from toolkit.core.tokenizers import SPECIALS, word_tokenizer

    return word_tokenizer([*SPECIALS, *dict.fromkeys(words)])


def build_tiny_llama(out: Path, seed: int = 0) -> Path:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    tok = build_word_tokenizer()
    config = LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                         pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id,
                         eos_token_id=tok.eos_token_id)
    model = LlamaForCausalLM(config)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def build_kv_task_model(out: Path, seed: int = 0) -> Path:
    """A random-weight GQA Llama over the kvcompress task vocabulary, saved with its tokenizer."""
    import torch
    from transformers import LlamaForCausalLM

    from toolkit.kvcompress.tasks import build_tokenizer
    from toolkit.kvcompress.train import model_config

    torch.manual_seed(seed)
    LlamaForCausalLM(model_config(n_layers=2, n_heads=4, n_kv_heads=2, hidden=64)).save_pretrained(out)
    build_tokenizer().save_pretrained(out)
    return out
