"""The shipped model and scores: retrieval heads are sparse and causal, HeadKV keeps accuracy at tight budgets."""

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "assets/kvcompress/model"
SCORES = ROOT / "assets/kvcompress/scores-retrieval.json"


@pytest.fixture(scope="module")
def shipped():
    from toolkit.kvcompress.evaluate import make_eval_set
    from toolkit.kvcompress.loading import load_model
    from toolkit.kvcompress.scoring import load_scores

    model, _ = load_model(MODEL, "sdpa")
    scores = load_scores(SCORES)["scores"]
    examples = make_eval_set(7, 8, [256], ["single", "multikey"])
    return model, scores, examples


def test_shipped_scores_are_sparse():
    from toolkit.kvcompress.scoring import load_scores

    data = load_scores(SCORES)
    s = data["scores"]
    assert s.shape == (4, 6)
    assert 0.05 <= data["retrieval_share"] <= 0.3
    assert (s > 0.1).sum() == int(round(data["retrieval_share"] * s.size))
    assert np.sort(s.ravel())[-1] > 0.5 and np.median(s) < 0.05


def test_headkv_beats_snapkv_at_tight_budget_and_masking_breaks_retrieval(shipped):
    from toolkit.kvcompress.evaluate import accuracy
    from toolkit.kvcompress.press import KVPress

    model, scores, examples = shipped
    full, _ = accuracy(model, examples)
    head, rows = accuracy(model, examples, KVPress("headkv", budget=12, head_scores=scores))
    snap, _ = accuracy(model, examples, KVPress("snapkv", budget=12))
    assert full >= 0.75
    assert head >= 0.9 * full and head > snap + 0.25
    assert all(r["kv_bytes"] < r["full_bytes"] / 10 for r in rows)
    from toolkit.kvcompress.evaluate import mask_experiment

    recs = mask_experiment(model, scores, examples, ks=(4,), n_random=5, seed=0)
    none, top, rand = (r["accuracy"] for r in recs)
    assert none == full
    assert top <= 0.25 and rand >= 2 * top + 0.2
