"""The shipped model and the demonstration records in assets/steer reproduce."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.steer.tasks import generate

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "steer"


@pytest.fixture(scope="module")
def shipped():
    from toolkit.core.models import load_causal_lm

    model, tok, _ = load_causal_lm(ASSETS / "model", device="cpu")
    return model, tok


def test_shipped_model_is_a_small_imperfect_gpt_neox(shipped):
    from toolkit.steer.scoring import score_problems

    model, tok = shipped
    assert model.config.model_type == "gpt_neox"
    assert sum(p.stat().st_size for p in ASSETS.rglob("*") if p.is_file()) < 20e6
    acc = {f: score_problems(model, tok, generate(f, "test", 200, 0)).accuracy
           for f in ("inductive", "mathematical")}
    assert all(0.45 < a < 0.8 for a in acc.values()), acc


def test_recorded_choice_reproduces_and_raises_test_accuracy(shipped):
    from toolkit.steer.sweep import sweep_split
    from toolkit.steer.vectors import load_vector

    model, tok = shipped
    records = [json.loads(line) for line in (ASSETS / "sweeps" / "mathematical-mean-diff.jsonl").open()]
    choice = next(r for r in records if r["type"] == "steer.choice")
    vec = load_vector(ASSETS / "vectors" / "mathematical-mean-diff.safetensors")
    points = sweep_split(model, tok, generate("mathematical", "test", choice["n_test"], 0), vec, choice["layer"],
                         [0.0, choice["alpha"]], family="mathematical", split="test")
    base, steered = (next(p for p in points if p.alpha == a) for a in (0.0, choice["alpha"]))
    assert base.accuracy == choice["test_accuracy_base"]
    assert steered.accuracy == choice["test_accuracy_steered"]
    assert steered.accuracy > base.accuracy
