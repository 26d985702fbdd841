"""A tiny local model whose answers are empty, for tests against `transformers serve` (tests/support/serve.py).

The model is built from a config: a 2-layer Llama whose final norm is zeroed, so every logit is equal and
greedy decoding ends at once (id 0, <pad>, is also an end token). Its answers are empty: exactly the
unreadable output the pipelines must survive with their bounded retries, and fast on a small CPU.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tests.support.serve import CHAT_TEMPLATE

SERVING_MODULES = ("fastapi", "uvicorn")


def missing_serving() -> list[str]:
    return [m for m in SERVING_MODULES if importlib.util.find_spec(m) is None]


def build_chat_model(out: Path) -> Path:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tests.support.tiny_models import build_tiny_llama

    build_tiny_llama(out)
    tok = AutoTokenizer.from_pretrained(out)
    tok.chat_template = CHAT_TEMPLATE  # /v1/chat/completions needs one
    tok.save_pretrained(out)
    model = AutoModelForCausalLM.from_pretrained(out)
    with torch.no_grad():
        model.model.norm.weight.zero_()
    model.generation_config.eos_token_id = [tok.eos_token_id, tok.pad_token_id]
    model.config.max_position_embeddings = 4096  # servers check prompt + answer against it (chase-sql asks 1,024)
    model.save_pretrained(out)
    return out
