"""Retrieval and R2 scores on hand-built attention patterns, and the scoring loop end to end."""

import json

import numpy as np
import pytest

from toolkit.kvcompress.scoring import (
    HeadScores,
    copy_step_scores,
    load_scores,
    mass_step_scores,
    needle_topk_step_scores,
    qa_f1,
    rouge1_recall,
    save_scores,
    score_heads,
)


def test_copy_step_scores_on_hand_built_pattern():
    prompt = [5, 6, 7, 8, 9, 10, 11]
    needle = (2, 5)  # tokens 7 8 9
    attn = np.zeros((2, 3, 9))
    attn[0, 0, 3] = 0.9  # attends to token 8 inside the needle -> copies 8
    attn[0, 1, 4] = 0.9  # attends to token 9 inside the needle but 8 is generated -> no
    attn[0, 2, 6] = 0.9  # outside the needle
    attn[1, 0, 3] = 0.4
    attn[1, 0, 0] = 0.5  # top-1 is outside although mass is on the needle -> no
    attn[1, 1, 3] = 0.6
    got = copy_step_scores(attn, prompt, token=8, needle=needle, answer_len=3)
    want = np.zeros((2, 3))
    want[0, 0] = want[1, 1] = 1 / 3
    assert np.allclose(got, want)


def test_mass_step_scores_sum_over_support_sentences():
    attn = np.zeros((1, 2, 10))
    attn[0, 0, 1:3] = 0.25
    attn[0, 0, 6] = 0.5
    attn[0, 1, 9] = 1.0
    got = mass_step_scores(attn, [(1, 3), (5, 8)], answer_len=2)
    assert np.allclose(got, [[0.5, 0.0]])


def test_reference_r2_step_takes_each_heads_top_needle_length_positions():
    # needle = tokens 1-2 and 5 (|needle| = 3): each head's top-3 positions; those inside add weight / 3
    attn = np.zeros((1, 3, 8))
    attn[0, 0, [1, 2, 5]] = [0.3, 0.3, 0.3]  # all top-3 inside: 0.9 / 3
    attn[0, 1, [0, 1, 7]] = [0.5, 0.2, 0.25]  # top-3 = 0, 7, 1: only 1 inside: 0.2 / 3
    attn[0, 2, [0, 3, 4, 5]] = [0.4, 0.3, 0.2, 0.1]  # 5 is 4th: outside the top-3, nothing
    got = needle_topk_step_scores(attn, [(1, 3), (5, 6)])
    assert np.allclose(got, [[0.3, 0.2 / 3, 0.0]])


def test_qa_f1_is_token_f1():
    assert qa_f1(["v1", "v2", "v9"], ["v1", "v2", "v3"]) == pytest.approx(2 / 3)
    assert qa_f1(["v1"], ["v1", "v2", "v3", "v4"]) == pytest.approx(0.4)  # P 1, R 1/4
    assert qa_f1([], ["v1"]) == 0.0


def test_rouge1_recall():
    assert rouge1_recall(["v1", "v2", "v9"], ["v1", "v2", "v3"]) == pytest.approx(2 / 3)
    assert rouge1_recall(["v1", "v1"], ["v1", "v2"]) == 0.5
    assert rouge1_recall([], []) == 0.0


def test_score_loop_counts_copies_of_a_perfect_copier(monkeypatch):
    """A fake decoder that copies the needle value with one head: that head scores 1, others 0."""
    from toolkit.kvcompress import scoring
    from toolkit.kvcompress.tasks import encode

    class Cfg:
        num_hidden_layers, num_attention_heads = 2, 3

    class Model:
        config = Cfg()

    def fake_decode(model, prompt_ids, max_new):
        ex = fake_decode.ex
        for i, word in enumerate(ex.final):
            attn = np.full((2, 3, len(prompt_ids)), 1e-3)
            attn[1, 2, ex.value_span[0] + i] = 1.0  # the copy head
            attn[0, 0, 0] = 1.0  # an attention sink
            yield encode([word])[0], attn
        yield encode(["</s>"])[0], np.zeros((2, 3, len(prompt_ids)))

    real_make = scoring.make_example

    def make(*a, **k):
        fake_decode.ex = real_make(*a, **k)
        return fake_decode.ex

    monkeypatch.setattr(scoring, "decode_with_attention", fake_decode)
    monkeypatch.setattr(scoring, "make_example", make)
    res = score_heads(Model(), "retrieval", lengths=(64,), depths=(0.2, 0.8), trials=2)
    assert res.kept == res.trials == 4
    assert res.scores[1, 2] == pytest.approx(1.0)
    assert res.scores.sum() == pytest.approx(1.0)
    assert res.retrieval_share == pytest.approx(1 / 6)
    assert res.top_heads(1) == [(1, 2)]


def test_scores_roundtrip_and_heatmap(tmp_path):
    res = HeadScores("r2", np.array([[0.0, 0.5], [0.05, 0.2]]), 4, 3, [64], [0.5])
    path, png = save_scores(res, tmp_path / "s.json", "m")
    data = json.loads(path.read_text())
    assert data["retrieval_share"] == 0.5 and data["kept"] == 3 and data["heatmap"] == "s.png"
    assert png.stat().st_size > 1000
    assert np.allclose(load_scores(path)["scores"], res.scores)


@pytest.mark.parametrize("method", ["r2", "r2-mass"])
def test_real_scoring_on_a_tiny_model(task_model_dir, method):
    from toolkit.kvcompress.loading import load_model

    model, _ = load_model(task_model_dir)
    res = score_heads(model, method, lengths=(96,), depths=(0.5,), trials=2, seed=1)
    assert res.scores.shape == (2, 4) and res.trials == 2
    assert np.all(res.scores >= 0)


def test_unwritable_score_file_and_too_many_masked_heads_are_input_errors(tmp_path):
    from toolkit.core.errors import InputError
    from toolkit.core.paths import check_writable
    from toolkit.kvcompress.evaluate import mask_experiment
    from toolkit.kvcompress.scoring import HeadScores, save_scores

    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = HeadScores("r2", np.array([[0.0, 0.5], [0.05, 0.2]]), 4, 3, [64], [0.5])
    with pytest.raises(InputError, match="cannot write"):
        check_writable(blocker / "s.json")
    with pytest.raises(InputError, match="cannot write"):
        save_scores(res, blocker / "s.json")
    assert blocker.read_text() == "x"
    check_writable(tmp_path / "new" / "s.json")  # a missing folder is made, not an error
    with pytest.raises(InputError, match=r"--k 3: expected 1\.\.2 \(the model has 4 heads"):
        mask_experiment(None, res.scores, [], ks=[1, 3])


def test_corrupted_weights_are_a_one_line_input_error(tmp_path):
    import shutil
    from pathlib import Path

    from toolkit.core.errors import InputError
    from toolkit.kvcompress.loading import load_model

    src = Path(__file__).resolve().parents[2] / "assets" / "kvcompress" / "model"
    bad = tmp_path / "model"
    shutil.copytree(src, bad)
    (bad / "model.safetensors").write_bytes(b"garbage")
    with pytest.raises(InputError, match="model: corrupted weights"):
        load_model(bad)


def test_non_numeric_scores_and_shape_mismatch_are_input_errors(tmp_path):
    from types import SimpleNamespace

    from toolkit.core.errors import InputError
    from toolkit.kvcompress.evaluate import mask_experiment
    from toolkit.kvcompress.scoring import load_scores

    bad = tmp_path / "s.json"
    bad.write_text(json.dumps({"scores": "x"}))
    with pytest.raises(InputError, match=r"field 'scores' must be a \(layers, heads\) matrix"):
        load_scores(bad)
    bad.write_text(json.dumps({"scores": [[0.1, "a"]]}))
    with pytest.raises(InputError, match="field 'scores'"):
        load_scores(bad)
    model = SimpleNamespace(config=SimpleNamespace(num_hidden_layers=4, num_attention_heads=6))
    with pytest.raises(InputError, match=r"head scores have shape \(1, 2\), model has \(4, 6\)"):
        mask_experiment(model, np.zeros((1, 2)), [], ks=[1])
