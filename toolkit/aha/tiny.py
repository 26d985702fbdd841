"""The tiny AHA detector: the generic tiny LLaVA (toolkit.core.tiny_vlm) over the AHA vocabulary."""

from __future__ import annotations

from pathlib import Path

from toolkit.aha.vocab import BASE_TEXT
from toolkit.core import tiny_vlm
from toolkit.core.tiny_vlm import VISION_KINDS, TinySpec


def build_tiny_vlm(out: str | Path, texts: list[str] | None = None, spec: TinySpec | None = None,
                   seed: int = 0) -> dict:
    """Save a tiny LLaVA model whose vocabulary covers AHA conversations and `texts`; return a summary."""
    return tiny_vlm.build_tiny_vlm(out, texts, spec, seed, base_text=BASE_TEXT)


__all__ = ["VISION_KINDS", "TinySpec", "build_tiny_vlm"]
