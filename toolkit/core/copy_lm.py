"""A Llama causal LM with a copy head (pointer-generator): it can emit a token by pointing at an earlier
position of its own context.

A small transformer trained for minutes on CPU learns the language of its answers long before it learns
to copy names out of its prompt (unseen table and column names, values). The copy head gives copying a
direct path: at position t a query from the top hidden state attends over positions j <= t, and the
attention mass on j goes to the token x_j found there. A learned gate mixes it with the vocabulary softmax:

    p(x_{t+1}) = g_t * softmax(W h_t) + (1 - g_t) * sum_{j <= t, x_j = x_{t+1}} a_{t,j}

The model returns log p as its logits, so `generate` works unchanged, but without a KV cache (pointing
needs every earlier hidden state). `decode` is the fast path the `hf:` backend takes: the Llama trunk keeps
its KV cache and the copy keys of every earlier position are kept beside it, so each new token costs one
position, and each row of a batch samples from its own seeded generator (a row's tokens do not depend on
the batch it ran in).

`register()` makes `model_type: "copy_llama"` loadable with `AutoModelForCausalLM` (the `hf:` backend).
"""

from __future__ import annotations

from functools import cache

COPY_DIM = 64


@cache
def _kv_arg() -> str:
    """The trunk's keyword for its KV cache in the installed transformers."""
    import inspect

    from transformers import LlamaModel

    return "cache" if "cache" in inspect.signature(LlamaModel.forward).parameters else "past_key_values"


def _kv_of(output):
    """The KV cache of a trunk's output (named `cache` from transformers 5.2x, `past_key_values` before)."""
    kv = getattr(output, "cache", None)
    return kv if kv is not None else output.past_key_values


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
            n = input_ids.shape[1]
            allowed = torch.ones(n, n, dtype=torch.bool, device=input_ids.device).tril()[None]
            if attention_mask is not None:
                allowed = allowed & attention_mask[:, None, :].bool()
            return self._mix(hidden, self.copy_key(hidden).float(), input_ids, allowed)

        def _mix(self, hidden, keys, context_ids, allowed):
            """log p(next) for the positions of `hidden` (b, t, h), pointing over `keys` (b, j, d) of the
            context tokens `context_ids` (b, j) where `allowed` (b, t, j)."""
            import torch

            vocab = torch.log_softmax(self.lm_head(hidden).float(), dim=-1)
            scores = self.copy_query(hidden).float() @ keys.transpose(1, 2) / self.config.copy_dim ** 0.5
            point = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
            index = context_ids[:, None, :].expand(-1, hidden.shape[1], -1)
            copied = torch.zeros_like(vocab).scatter_add_(2, index, point)
            gate = torch.sigmoid(self.copy_gate(hidden).float())
            return torch.log(gate * vocab.exp() + (1 - gate) * copied + 1e-9)

        def decode(self, input_ids, attention_mask, max_new_tokens: int, temperature: float = 0.0,
                   seeds: list[int] | None = None, eos_token_id: int | None = None, repeat_window: int = 48,
                   logits_processor=None):
            """New tokens for a left-padded batch, with a KV cache: (tokens (b, steps), log p of each); rows
            that ended hold `eos_token_id` after it. Greedy at temperature 0; else row r samples with a
            generator seeded by seeds[r]. A row that ends leaves the batch, so a long one runs alone.
            A row whose last `repeat_window` tokens repeat one short unit (`athletetetete...`, `Guin Guin Guin`)
            ends there: a small model in such a loop never leaves it, and would hold the batch to max_new_tokens
            (0: never stop early). `logits_processor` (transformers' LogitsProcessor API) sees every row of the
            batch, ended rows included (they hold `eos_token_id`), so a row keeps its index; its scores are log p."""
            import torch

            b, dev = input_ids.shape[0], input_ids.device
            mask = attention_mask.long()
            position = (mask.cumsum(-1) - 1).clamp(min=0)
            rngs = None
            if temperature > 0:
                rngs = [torch.Generator(device=dev) for _ in range(b)]
                for rng, seed in zip(rngs, seeds or [0] * b, strict=True):
                    rng.manual_seed(int(seed))
            out = self.model(input_ids=input_ids, attention_mask=mask, position_ids=position, use_cache=True)
            kv, hidden = _kv_of(out), out.last_hidden_state
            keys, context, valid = self.copy_key(hidden).float(), input_ids, mask.bool()
            live = torch.arange(b, device=dev)  # which input row each batch row is
            tokens = torch.full((b, max_new_tokens), 0 if eos_token_id is None else eos_token_id, device=dev)
            scores = torch.zeros(b, max_new_tokens, device=dev)
            steps = 0
            for step in range(max_new_tokens):
                logp = self._mix(hidden[:, -1:], keys, context, valid[:, None, :])[:, 0]
                if logits_processor is not None:
                    full = logp.new_full((b, logp.shape[1]), float("-inf"))
                    full[live] = logp
                    logp = logits_processor(torch.cat([input_ids, tokens[:, :step]], dim=1), full)[live]
                if rngs is None:
                    nxt = logp.argmax(-1)
                else:  # Gumbel-max on each row's own stream
                    u = torch.stack([torch.rand(logp.shape[1], generator=g, device=dev) for g in rngs])
                    nxt = (logp / temperature - torch.log(-torch.log(u.clamp(1e-12, 1.0)))).argmax(-1)
                scores[live, step] = logp.gather(1, nxt[:, None])[:, 0]
                if eos_token_id is not None and repeat_window and step >= repeat_window + REPEAT_UNIT:
                    nxt = torch.where(_looping(tokens[live, : step], nxt, repeat_window), eos_token_id, nxt)
                tokens[live, step] = nxt
                steps = step + 1
                if eos_token_id is not None and bool((nxt == eos_token_id).any()):
                    going = (nxt != eos_token_id).nonzero()[:, 0]
                    if going.numel() == 0:
                        break
                    kv.batch_select_indices(going)
                    live, nxt, mask, position = live[going], nxt[going], mask[going], position[going]
                    keys, context, valid = keys[going], context[going], valid[going]
                    rngs = None if rngs is None else [rngs[i] for i in going.tolist()]
                mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=1)
                position = position[:, -1:] + 1
                out = self.model(input_ids=nxt[:, None], attention_mask=mask, position_ids=position,
                                 use_cache=True, **{_kv_arg(): kv})
                kv, hidden = _kv_of(out), out.last_hidden_state
                keys = torch.cat([keys, self.copy_key(hidden).float()], dim=1)
                context = torch.cat([context, nxt[:, None]], dim=1)
                valid = torch.cat([valid, torch.ones_like(valid[:, :1])], dim=1)
            return tokens[:, :steps], scores[:, :steps]

        def beam_decode(self, input_ids, max_new_tokens: int, beams: int, eos_token_id: int,
                        logits_processor=None, repeat_window: int = 48) -> list[int] | None:
            """The best of `beams` hypotheses for one prompt (input_ids (1, length)), with a KV cache: the
            finished hypothesis of highest log p per token (transformers' beam scoring, length penalty 1).
            A hypothesis every token of which the processor refuses (-inf: a dead end) is dropped, so the
            beam backs up to its next-best prefix (PICARD's setting); the processor sees the live rows and,
            when it has `reorder(parents)`, is told which row each new row continues. A looping hypothesis
            (see `decode`) is dropped too. None when no hypothesis finished within `max_new_tokens`."""
            import torch

            dev = input_ids.device
            out = self.model(input_ids=input_ids, use_cache=True)
            kv, hidden = _kv_of(out), out.last_hidden_state
            keys, context = self.copy_key(hidden).float(), input_ids
            width = input_ids.shape[1]
            seqs: list[list[int]] = [[]]
            totals = torch.zeros(1, device=dev)
            done: list[tuple[float, list[int]]] = []
            for step in range(max_new_tokens):
                valid = torch.ones(context.shape, dtype=torch.bool, device=dev)
                logp = self._mix(hidden[:, -1:], keys, context, valid[:, None, :])[:, 0]
                if logits_processor is not None:
                    logp = logits_processor(context, logp)
                cand = (totals[:, None] + logp).view(-1)
                top, index = cand.topk(min(2 * beams, cand.numel()))
                parents, tokens, scores = [], [], []
                for score, i in zip(top.tolist(), index.tolist(), strict=True):
                    if score == float("-inf") or len(parents) == beams:
                        break
                    parent, token = divmod(i, logp.shape[1])
                    if token == eos_token_id:
                        done.append((score / (step + 1), seqs[parent]))
                    elif not (repeat_window and _repeating(seqs[parent] + [token], repeat_window)):
                        parents.append(parent)
                        tokens.append(token)
                        scores.append(score)
                done = sorted(done, key=lambda d: -d[0])[:beams]
                if not parents or (len(done) == beams and scores[0] / (step + 1) <= done[-1][0]):
                    break
                pick = torch.tensor(parents, device=dev)
                kv.reorder_cache(pick)
                if hasattr(logits_processor, "reorder"):
                    logits_processor.reorder(parents)
                nxt = torch.tensor(tokens, device=dev)[:, None]
                seqs = [seqs[p] + [t] for p, t in zip(parents, tokens, strict=True)]
                totals = torch.tensor(scores, device=dev)
                out = self.model(input_ids=nxt, position_ids=torch.full_like(nxt, width + step), use_cache=True,
                                 **{_kv_arg(): kv})
                kv, hidden = _kv_of(out), out.last_hidden_state
                keys = torch.cat([keys[pick], self.copy_key(hidden).float()], dim=1)
                context = torch.cat([context[pick], nxt], dim=1)
            return done[0][1] if done else None

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


REPEAT_UNIT = 8  # the longest repeating unit (in tokens) that counts as a loop


def _looping(previous, nxt, window: int):
    """(rows,) bool: the last `window` tokens, `nxt` included, repeat a unit of at most REPEAT_UNIT tokens."""
    import torch

    seq = torch.cat([previous, nxt[:, None]], dim=1)
    tail = seq[:, -window:]
    hit = torch.zeros(seq.shape[0], dtype=torch.bool, device=seq.device)
    for unit in range(1, REPEAT_UNIT + 1):
        hit |= (tail == seq[:, -window - unit: seq.shape[1] - unit]).all(dim=1)
    return hit


def _repeating(tokens: list[int], window: int) -> bool:
    """Whether the last `window` tokens repeat a unit of at most REPEAT_UNIT tokens (one hypothesis)."""
    import torch

    if len(tokens) < window + REPEAT_UNIT:
        return False
    seq = torch.tensor([tokens[-window - REPEAT_UNIT:]])
    return bool(_looping(seq[:, :-1], seq[:, -1], window)[0])


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
