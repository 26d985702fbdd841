"""Choosing the binary selector: a prompted LLM, another backend, a LoRA-tuned local model,
or the pairwise classifier trained here (`model:DIR`)."""

from __future__ import annotations

from toolkit.chase_sql.selection import LLMSelector
from toolkit.core.errors import InputError


def make_selector(spec: str, backend):
    if spec == "self-consistency":
        return None
    if spec == "llm":
        return LLMSelector(backend)
    if spec.startswith("llm:"):
        from toolkit.core.llm import from_uri

        return LLMSelector(from_uri(spec[4:]))
    if spec.startswith("lora:"):
        from toolkit.chase_sql.selector_model import LoRASelector

        return LoRASelector(spec[5:])
    if spec.startswith("model:"):
        from toolkit.chase_sql.learned.pairwise import ModelSelector

        return ModelSelector(spec[6:])
    raise InputError(f"--selector {spec}: expected llm, llm:URI, lora:ADAPTER_DIR, model:DIR or self-consistency")
