"""A Llama causal LM with a copy head (pointer-generator): it can emit a token by pointing at an earlier
position of its own context.

A small transformer trained for minutes on CPU learns the language of its answers long before it learns
to copy names out of its prompt (unseen table and column names, values). The copy head gives copying a
direct path: at position t a query from the top hidden state attends over positions j <= t, and the
attention mass on j goes to the token x_j found there. A learned gate mixes it with the vocabulary softmax:

    p(x_{t+1}) = g_t * softmax(W h_t) + (1 - g_t) * sum_{j <= t, x_j = x_{t+1}} a_{t,j}

The model returns log p as its logits, so `generate`, sampling at a temperature and greedy decoding work
unchanged. Pointing needs every earlier hidden state, so the model runs without a KV cache: fine for
the few hundred tokens of a small model's prompts.

`register()` makes `model_type: "copy_llama"` loadable with `AutoModelForCausalLM` (the `hf:` backend).
"""

from __future__ import annotations

from functools import cache

COPY_DIM = 64


@cache
def _classes() -> tuple[type, type]:
    """The config and model classes, built on first use (transformers is an optional extra)."""
    from transformers import LlamaConfig, LlamaForCausalLM
    from transformers.modeling_outputs import CausalLMOutputWithPast

    class CopyLlamaConfig(LlamaConfig):
        model_type = "copy_llama"

        def __init__(self, copy_dim: int = COPY_DIM, **kwargs) -> None:
            kwargs.setdefault("use_cache", False)
            super().__init__(**kwargs)
            self.copy_dim = copy_dim

    class CopyLlamaForCausalLM(LlamaForCausalLM):
        config_class = CopyLlamaConfig

        def __init__(self, config: CopyLlamaConfig) -> None:
            import torch

            super().__init__(config)
            self.copy_query = torch.nn.Linear(config.hidden_size, config.copy_dim, bias=False)
            self.copy_key = torch.nn.Linear(config.hidden_size, config.copy_dim, bias=False)
            self.copy_gate = torch.nn.Linear(config.hidden_size, 1)
            self.post_init()

        def log_probs(self, input_ids, attention_mask=None, position_ids=None):
            """log p(next token) at every position: (batch, length, vocab)."""
            import torch

            hidden = self.model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                                use_cache=False).last_hidden_state
            vocab = torch.log_softmax(self.lm_head(hidden).float(), dim=-1)
            q, k = self.copy_query(hidden).float(), self.copy_key(hidden).float()
            scores = q @ k.transpose(1, 2) / self.config.copy_dim ** 0.5  # (b, t, j)
            n = input_ids.shape[1]
            allowed = torch.ones(n, n, dtype=torch.bool, device=input_ids.device).tril()[None]
            if attention_mask is not None:
                allowed = allowed & attention_mask[:, None, :].bool()
            point = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
            copied = torch.zeros_like(vocab).scatter_add_(2, input_ids[:, None, :].expand(-1, n, -1), point)
            gate = torch.sigmoid(self.copy_gate(hidden).float())
            return torch.log(gate * vocab.exp() + (1 - gate) * copied + 1e-9)

        def forward(self, input_ids=None, attention_mask=None, position_ids=None, labels=None,
                    **kwargs):  # noqa: ARG002 (cache arguments: this model runs without a cache)
            logits = self.log_probs(input_ids, attention_mask, position_ids)
            loss = None
            if labels is not None:
                import torch

                loss = torch.nn.functional.nll_loss(logits[:, :-1].reshape(-1, logits.shape[-1]),
                                                    labels[:, 1:].reshape(-1), ignore_index=-100)
            return CausalLMOutputWithPast(loss=loss, logits=logits)

    return CopyLlamaConfig, CopyLlamaForCausalLM


def __getattr__(name: str):  # CopyLlamaConfig, CopyLlamaForCausalLM without importing transformers at start-up
    if name in ("CopyLlamaConfig", "CopyLlamaForCausalLM"):
        return dict(zip(("CopyLlamaConfig", "CopyLlamaForCausalLM"), _classes(), strict=True))[name]
    raise AttributeError(name)


def register() -> None:
    """Make copy_llama directories loadable through the Auto classes (idempotent)."""
    from transformers import AutoConfig, AutoModelForCausalLM

    config_class, model_class = _classes()
    try:
        AutoConfig.register("copy_llama", config_class)
        AutoModelForCausalLM.register(config_class, model_class)
    except ValueError:  # already registered
        pass
