"""Tiny random causal LMs of several architectures, built from configs with the task tokenizer."""

from __future__ import annotations

from pathlib import Path


def build(arch: str, out: Path | None = None, seed: int = 0, hidden: int = 32):
    """(model, tokenizer) for arch in neox, llama, gpt2, opt; saved to `out` when given."""
    import torch
    from transformers import (
        GPT2Config,
        GPT2LMHeadModel,
        GPTNeoXConfig,
        GPTNeoXForCausalLM,
        LlamaConfig,
        LlamaForCausalLM,
        OPTConfig,
        OPTForCausalLM,
    )

    from toolkit.steer.train import build_tokenizer

    tok = build_tokenizer()
    ids = {"pad_token_id": tok.pad_token_id, "bos_token_id": tok.bos_token_id, "eos_token_id": tok.eos_token_id}
    torch.manual_seed(seed)
    if arch == "neox":
        model = GPTNeoXForCausalLM(GPTNeoXConfig(vocab_size=len(tok), hidden_size=hidden, num_hidden_layers=3,
                                                 num_attention_heads=4, intermediate_size=2 * hidden,
                                                 max_position_embeddings=64, rotary_pct=0.25, **ids))
    elif arch == "llama":
        model = LlamaForCausalLM(LlamaConfig(vocab_size=len(tok), hidden_size=hidden, intermediate_size=2 * hidden,
                                             num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                                             max_position_embeddings=64, **ids))
    elif arch == "gpt2":
        model = GPT2LMHeadModel(GPT2Config(vocab_size=len(tok), n_embd=hidden, n_layer=3, n_head=4, n_positions=64,
                                           **ids))
    elif arch == "opt":
        model = OPTForCausalLM(OPTConfig(vocab_size=len(tok), hidden_size=hidden, num_hidden_layers=2,
                                         ffn_dim=2 * hidden, num_attention_heads=4, max_position_embeddings=64,
                                         word_embed_proj_dim=hidden, **ids))
    else:
        raise ValueError(arch)
    model.eval()
    if out is not None:
        model.save_pretrained(out)
        tok.save_pretrained(out)
    return model, tok
