"""Load a local model for kvcompress with a chosen attention implementation."""

from __future__ import annotations

from pathlib import Path

from toolkit.core.errors import InputError


def load_model(path: str | Path, attn: str = "eager", device: str = "cpu"):
    """(model, device) for a local causal LM directory; attention implementation set to `attn`."""
    model, _tok, dev = load_model_and_tokenizer(path, attn, device)
    return model, dev


def load_model_and_tokenizer(path: str | Path, attn: str = "eager", device: str = "cpu"):
    """(model, tokenizer, device) for a local causal LM directory; attention implementation set to `attn`."""
    from toolkit.core.models import load_causal_lm

    if attn not in ("eager", "sdpa"):
        raise InputError(f"--attn {attn}: kvcompress supports eager and sdpa")
    try:
        model, tok, dev = load_causal_lm(path, device=device)
    except Exception as exc:  # a corrupted weights file raises safetensors' own error type
        if type(exc).__name__ != "SafetensorError":
            raise
        raise InputError(f"{path}: corrupted weights ({str(exc).splitlines()[0]})") from None
    model.set_attn_implementation(attn)
    model.eval()
    return model, tok, dev


def parse_ints(text: str, what: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"{what} '{text}': expected comma-separated integers") from None
    if not values or any(v <= 0 for v in values):
        raise InputError(f"{what} '{text}': expected positive integers")
    return values


def parse_floats(text: str, what: str) -> list[float]:
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"{what} '{text}': expected comma-separated numbers") from None
    if not values:
        raise InputError(f"{what} '{text}': expected at least one number")
    return values
