"""The shipped Mamba and Llama reproduce their published held-out accuracy on 200 fresh test problems."""

from __future__ import annotations

import json
import math

import pytest

from toolkit.core.assets import asset_path

pytest.importorskip("torch")
pytest.importorskip("mambapy")


@pytest.mark.parametrize("arch", ["transformer", "mamba"])
def test_shipped_model_within_005_of_the_published_curve(arch):
    from toolkit.ssm_limits.evaluate import eval_model

    model_dir = asset_path(f"ssm_limits/models/{arch}")
    curves = asset_path("ssm_limits/curves.jsonl")
    if not (model_dir / "config.json").exists() or not curves.exists():
        pytest.skip("models not shipped in this checkout")
    rows = [json.loads(line) for line in curves.read_text().splitlines()]
    ref = [r for r in rows if r["arch"] == arch and r["size"] == 16 and r["depth"] <= 4]
    published = sum(r["correct"] for r in ref) / sum(r["n"] for r in ref)
    fresh = eval_model(model_dir, "iterate", [16], [1, 2, 3, 4], "cot", 50, seed=7)  # 200 problems, new seed
    n_fresh, n_ref = sum(r["n"] for r in fresh), sum(r["n"] for r in ref)
    measured = sum(r["correct"] for r in fresh) / n_fresh
    # 0.05, or 3 standard errors of the difference where the sampling noise of 200 problems is larger than that
    # (the shipped models sit near 0.15-0.2, where seeds 7, 8 and 9 alone spread 0.12-0.20)
    p = (measured * n_fresh + published * n_ref) / (n_fresh + n_ref)
    tolerance = max(0.05, 3 * math.sqrt(p * (1 - p) * (1 / n_fresh + 1 / n_ref)))
    assert abs(measured - published) <= tolerance, (measured, published, tolerance)


def test_shipped_transformer_does_the_lookup_far_above_the_floor():
    """The retrained transformer meets its target (>= 0.9 at n = 16, K = 4) on fresh test problems, far above the
    most-frequent-value floor, and its per-step fit with the floor is near 1 on the depths it was trained on."""
    from toolkit.ssm_limits.evaluate import eval_model

    model_dir = asset_path("ssm_limits/models/transformer")
    if not (model_dir / "config.json").exists():
        pytest.skip("models not shipped in this checkout")
    rows = eval_model(model_dir, "iterate", [8, 16], [1, 4], "cot", 40, seed=13)
    cell = {(r["size"], r["depth"]): r for r in rows}
    assert cell[(16, 4)]["accuracy"] >= 0.9
    assert all(r["accuracy"] >= r["floor"] + 0.4 for r in rows)
    assert all(r["p_step_floor"] >= 0.9 for r in rows)


def test_matched_mamba_falls_behind_the_transformer_as_the_table_grows_and_the_chain_lengthens():
    """Claim 1's direction on fresh test problems, against the Mamba trained with the transformer's own recipe, seed
    and steps: at n = 64 the transformer keeps the lookup (far above the most-frequent-value floor) while the Mamba
    falls behind it, by at least 20 points at K = 4 and by more at K = 4 than at K = 2."""
    from toolkit.ssm_limits.evaluate import eval_model

    dirs = {arch: asset_path(f"ssm_limits/models/{arch}") for arch in ("transformer", "mamba-64")}
    if not all((d / "config.json").exists() for d in dirs.values()):
        pytest.skip("models not shipped in this checkout")
    tr, ma = ({r["depth"]: r for r in eval_model(dirs[a], "iterate", [64], [2, 4], "cot", 40, seed=21)}
              for a in ("transformer", "mamba-64"))
    assert all(tr[k]["floor"] == ma[k]["floor"] for k in (2, 4))  # the same problems
    assert all(tr[k]["accuracy"] >= tr[k]["floor"] + 0.5 for k in (2, 4))
    gap = {k: tr[k]["accuracy"] - ma[k]["accuracy"] for k in (2, 4)}
    assert gap[2] > 0 and gap[4] >= 0.2 and gap[4] > gap[2], gap


@pytest.mark.parametrize("name", ["transformer", "mamba-base"])
def test_cached_decoding_writes_what_the_full_forward_writes(name):
    """Greedy decoding through the model's cache (Mamba's recurrent state, Llama's KV cache) writes the tokens that
    recomputing the whole sequence at every step writes, on trained models (where argmax ties are rare)."""
    import torch

    from toolkit.ssm_limits.models import decode_batch, encode_words, load
    from toolkit.ssm_limits.scan import use_fast_mamba_scan
    from toolkit.ssm_limits.tasks import generate

    model_dir = asset_path(f"ssm_limits/models/{name}")
    if not (model_dir / "config.json").exists():
        pytest.skip("models not shipped in this checkout")
    model, tok = load(model_dir, "iterate")
    prompts = [encode_words(p["data"], "iterate", "cot", True)[0] for p in generate("iterate", 8, 4, 20, "test", 23)]
    cached = decode_batch(model, tok, prompts, 5)
    vocab = tok.get_vocab()
    inv = {i: w for w, i in vocab.items()}
    ids = torch.tensor([[vocab[w] for w in p] for p in prompts])
    seq = ids
    with torch.no_grad(), use_fast_mamba_scan(model):
        for _ in range(5):
            seq = torch.cat([seq, model(input_ids=seq, use_cache=False).logits[:, -1].argmax(-1)[:, None]], 1)
    full = [[inv[t] for t in row[ids.shape[1]:].tolist()] for row in seq]
    full = [words[: words.index("</s>")] if "</s>" in words else words for words in full]
    assert cached == full
    assert all(len(words) == 4 for words in cached)  # K = 4: four CoT values, then </s>


def test_shipped_automaton_reproduces_its_record():
    pytest.importorskip("automata")
    from pathlib import Path

    from toolkit.ssm_limits.automaton import analyse

    model_dir = asset_path("ssm_limits/automaton")
    record_path = asset_path("ssm_limits/automaton.jsonl")
    if not (model_dir / "automaton.pt").exists() or not record_path.exists():
        pytest.skip("automaton not shipped in this checkout")
    published = json.loads(record_path.read_text().splitlines()[0])
    fresh = analyse(Path(model_dir), bits=4, seconds=1, max_n=8, test_n=32, seed=0)  # loads: no training
    for key in ("reachable_states", "minimal_states", "dfa_agreement", "max_n_all_correct", "accuracy_by_n"):
        assert fresh[key] == published[key], key
    assert published["dfa_agreement"] == 1.0 and published["max_n_all_correct"] < published["trained_max_n"]
