"""Option probabilities from any backend: one forward pass (hf), top logprobs (openai), or sampling.

`hf:` models give the exact next-token distribution after the rendered prompt; an `openai:` backend
built with `?top_logprobs=20` returns the first token's top alternatives; anything else is sampled
`samples` times at temperature 1 and counted (the paper's method).
"""

from __future__ import annotations

import math

from toolkit.selfaware.scoring import letter_probs, sampled_probs


def _unwrap(llm):
    return getattr(llm, "inner", llm)


def hf_next_token_logprobs(backend, messages) -> dict[str, float]:
    """{token text: logprob} of the next token after the prompt, one forward pass."""
    import torch

    tok = backend.tokenizer
    prompt = backend.render(messages)
    enc = tok([prompt], return_tensors="pt", add_special_tokens=not getattr(tok, "chat_template", None))
    enc = {k: v.to(backend.device) for k, v in enc.items()}
    with torch.no_grad():
        logits = backend.model(**enc).logits[0, -1].float()
    logp = logits.log_softmax(-1)
    top = torch.topk(logp, min(50, logp.shape[0]))
    return {tok.decode([int(i)]): float(v) for v, i in zip(top.values, top.indices, strict=True)}


def option_probs(llm, messages, letters, *, samples: int = 100) -> tuple[dict | None, str, int]:
    """(renormalised probabilities per letter or None, method, unparseable samples)."""
    inner = _unwrap(llm)
    if hasattr(inner, "model") and hasattr(inner, "render") and llm is inner:
        return letter_probs(hf_next_token_logprobs(inner, messages), letters), "forward", 0
    if getattr(inner, "top_logprobs", 0):
        comp = llm.complete(messages, n=1, temperature=0.0, max_tokens=1)
        tops = comp.top_logprobs[0][0] if comp.top_logprobs and comp.top_logprobs[0] else {}
        return letter_probs(tops, letters), "top_logprobs", 0
    comp = llm.complete(messages, n=samples, temperature=1.0, max_tokens=3)
    probs, bad = sampled_probs(comp.texts, letters)
    return probs, "samples", bad


def entropy_bits(probs: dict[str, float]) -> float:
    return -sum(p * math.log2(p) for p in probs.values() if p > 0)
