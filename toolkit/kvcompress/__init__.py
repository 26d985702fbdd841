"""kvcompress: retrieval-head scoring, head-level KV-cache compression (HeadKV) with baselines, and
decode-time page selection (Quest, HeadKV+Quest).

Public API:
    KVPress(method, budget, ...)      context manager around model.generate (see press.py)
    HeadCache                          per-head variable-length transformers Cache (see cache.py)
    score_heads / save_scores / load_scores   retrieval and R2 head scores
    headkv_budgets / pyramid_budgets          budget allocation
    make_example, TASKS                        synthetic long-context tasks
"""

from toolkit.core.assets import asset_path
from toolkit.kvcompress.allocation import METHODS, headkv_budgets, pyramid_budgets, round_preserving_sum
from toolkit.kvcompress.tasks import TASKS, make_example

_ASSETS = asset_path("kvcompress")
DEFAULT_MODEL = str(_ASSETS / "model")
DEFAULT_SCORES = {"retrieval": str(_ASSETS / "scores-retrieval.json"), "r2": str(_ASSETS / "scores-r2.json"),
                  "r2-mass": str(_ASSETS / "scores-r2-mass.json")}


def __getattr__(name):  # torch-dependent parts load lazily
    if name == "KVPress":
        from toolkit.kvcompress.press import KVPress

        return KVPress
    if name == "HeadCache":
        from toolkit.kvcompress.cache import HeadCache

        return HeadCache
    if name in ("score_heads", "save_scores", "load_scores"):
        from toolkit.kvcompress import scoring

        return getattr(scoring, name)
    raise AttributeError(name)


__all__ = ["METHODS", "TASKS", "DEFAULT_MODEL", "DEFAULT_SCORES", "KVPress", "HeadCache", "score_heads",
           "save_scores", "load_scores", "headkv_budgets", "pyramid_budgets", "round_preserving_sum", "make_example"]
