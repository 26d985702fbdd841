"""Tiny random models of every supported family (GQA: 4 query heads, 2 KV heads), built from configs."""

from __future__ import annotations

COMMON = dict(vocab_size=64, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
              num_key_value_heads=2, max_position_embeddings=512, head_dim=16, pad_token_id=0, bos_token_id=1,
              eos_token_id=2)
WINDOW = 24  # shorter than the test prompts, so sliding-window layers really slide


def family_model(family: str, seed: int = 0):
    import torch
    import transformers as tf

    torch.manual_seed(seed)
    local_global = ["sliding_attention", "full_attention"]
    configs = {
        "llama": lambda: (tf.LlamaConfig(**COMMON), tf.LlamaForCausalLM),
        "mistral": lambda: (tf.MistralConfig(**COMMON, sliding_window=WINDOW), tf.MistralForCausalLM),
        "qwen2": lambda: (tf.Qwen2Config(**COMMON), tf.Qwen2ForCausalLM),
        "qwen3": lambda: (tf.Qwen3Config(**COMMON), tf.Qwen3ForCausalLM),
        "gemma2": lambda: (tf.Gemma2Config(**COMMON, sliding_window=WINDOW, layer_types=local_global,
                                           attn_logit_softcapping=5.0, final_logit_softcapping=30.0,
                                           query_pre_attn_scalar=16), tf.Gemma2ForCausalLM),
        "gemma3": lambda: (tf.Gemma3TextConfig(**COMMON, sliding_window=WINDOW, layer_types=local_global,
                                               query_pre_attn_scalar=16), tf.Gemma3ForCausalLM),
        "phi3": lambda: (tf.Phi3Config(**{k: v for k, v in COMMON.items() if k != "head_dim"}),
                         tf.Phi3ForCausalLM),
    }
    config, cls = configs[family]()
    config._attn_implementation = "eager"
    return cls(config).eval()


FAMILIES = ("llama", "mistral", "qwen2", "qwen3", "gemma2", "gemma3", "phi3")


def greedy(model, ids, press=None, n=8):
    """Greedy decoding of n tokens with per-step logits, under `press` when one is given."""
    import torch

    kwargs = dict(max_new_tokens=n, min_new_tokens=n, do_sample=False, output_logits=True,
                  return_dict_in_generate=True, attention_mask=torch.ones_like(ids), pad_token_id=0)
    with torch.no_grad():
        if press is None:
            return model.generate(ids, **kwargs)
        with press(model):
            return model.generate(ids, **kwargs)
