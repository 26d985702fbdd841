from __future__ import annotations

import json

import torch

from toolkit.steer.tasks import FAMILIES, generate, vocabulary
from toolkit.steer.train import TrainConfig, build_tokenizer, train


def test_tokenizer_covers_every_task_word():
    tok = build_tokenizer()
    for f in FAMILIES:
        for p in generate(f, "test", 50, 0):
            ids = tok(f"{p.prompt} {p.correct}", add_special_tokens=False)["input_ids"]
            assert tok.unk_token_id not in ids
            assert len(ids) == len(f"{p.prompt} {p.correct}".split())
    assert len(tok) == len(vocabulary()) + 4


def test_training_is_deterministic_and_saves_a_loadable_gpt_neox(tmp_path):
    from toolkit.core.models import load_causal_lm

    cfg = TrainConfig(steps=4, batch=8, hidden=16, layers=2, heads=2, intermediate=32, seed=3)
    log = train(tmp_path / "a", cfg, eval_every=4, n_eval=6)
    train(tmp_path / "b", cfg, eval_every=4, n_eval=6)
    a, tok, _ = load_causal_lm(tmp_path / "a", device="cpu")
    b, _, _ = load_causal_lm(tmp_path / "b", device="cpu")
    assert a.config.model_type == "gpt_neox" and tok.padding_side == "left"
    for (name, pa), (_, pb) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        assert torch.equal(pa, pb), name
    saved = json.loads((tmp_path / "a" / "train_log.json").read_text())
    assert saved["evals"][-1]["step"] == 4 and saved == log
    assert set(saved["evals"][-1]["validation_accuracy"]) == set(FAMILIES)
