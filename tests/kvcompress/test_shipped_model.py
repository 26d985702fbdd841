"""The shipped model and scores: sparse, causal retrieval heads; HeadKV keeps two-hop answers at tight budgets."""

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "assets/kvcompress/model"
SCORES = ROOT / "assets/kvcompress/scores-retrieval.json"


@pytest.fixture(scope="module")
def shipped():
    from toolkit.kvcompress.loading import load_model
    from toolkit.kvcompress.scoring import load_scores

    model, _ = load_model(MODEL, "sdpa")
    return model, load_scores(SCORES)["scores"]


def test_shipped_scores_are_sparse():
    from toolkit.kvcompress.scoring import load_scores

    data = load_scores(SCORES)
    s = data["scores"]
    assert s.shape == (4, 8)
    assert 0.05 <= data["retrieval_share"] <= 0.2
    assert (s > 0.1).sum() == int(round(data["retrieval_share"] * s.size))
    assert np.sort(s.ravel())[-1] > 0.9 and np.median(s) < 0.05
    assert data["lengths"] == [1024, 2048]


def test_headkv_keeps_two_hop_at_1k_where_snapkv_loses_it(shipped):
    from toolkit.kvcompress.evaluate import accuracy, make_eval_set
    from toolkit.kvcompress.press import KVPress

    model, scores = shipped
    examples = make_eval_set(7, 6, [1024], ["twohop"])
    full, _ = accuracy(model, examples)
    head, rows = accuracy(model, examples, KVPress("headkv", budget=32, head_scores=scores))
    snap, _ = accuracy(model, examples, KVPress("snapkv", budget=32))
    assert full >= 0.8
    assert head >= snap + 0.3
    assert all(r["kv_bytes"] < r["full_bytes"] / 10 for r in rows)


def test_masking_the_retrieval_heads_breaks_retrieval(shipped):
    from toolkit.kvcompress.evaluate import accuracy, make_eval_set, mask_experiment

    model, scores = shipped
    examples = make_eval_set(7, 4, [512], ["single", "multikey"])
    full, _ = accuracy(model, examples)
    recs = mask_experiment(model, scores, examples, ks=(4,), n_random=3, seed=0)
    none, top, rand = (r["accuracy"] for r in recs)
    assert none == full >= 0.85
    assert top <= 0.25 and rand >= 2 * top + 0.5
