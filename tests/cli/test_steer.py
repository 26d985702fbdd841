"""End-to-end runs of `reason steer ...` through the real executable."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="module")
def tiny_dirs(tmp_path_factory):
    from tests.steer.models import build

    root = tmp_path_factory.mktemp("steer-cli")
    build("neox", root / "neox")
    build("opt", root / "opt")
    build("llama", root / "llama", hidden=48)
    return root


def _records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_tasks_pairs_derive_sweep_export_import_apply(reason, tiny_dirs, tmp_path):
    model = str(tiny_dirs / "neox")
    r = reason("steer", "tasks", "--task", "deductive", "--split", "train", "--n", "12", "--pairs", "--seed", "1")
    assert r.returncode == 0, r.stderr
    pairs = _records(r.stdout)
    assert len(pairs) == 12 and all(p["type"] == "steer.pair" for p in pairs)
    again = reason("steer", "tasks", "--task", "deductive", "--split", "train", "--n", "12", "--pairs", "--seed", "1")
    assert again.stdout == r.stdout
    (tmp_path / "pairs.jsonl").write_text(r.stdout)

    vec = tmp_path / "v.safetensors"
    r = reason("steer", "derive", "--model", model, "--pairs", str(tmp_path / "pairs.jsonl"), "--method", "pca-diff",
               "--layers", "1..2", "--out", str(vec), "--device", "cpu")
    assert r.returncode == 0, r.stderr
    info = _records(r.stdout)[0]
    assert info["type"] == "steer.vector" and info["layers"] == [1, 2] and info["pairs"] == 12

    plot = tmp_path / "sweep.png"
    out = tmp_path / "sweep.jsonl"
    r = reason("steer", "sweep", "--model", model, "--vector", str(vec), "--task", "deductive", "--alphas",
               "-1:1:1", "--layers", "2", "--n-val", "8", "--n-test", "8", "--plot", str(plot), "--out", str(out))
    assert r.returncode == 0, r.stderr
    recs = _records(out.read_text())
    points = [x for x in recs if x["type"] == "steer.sweep"]
    assert {(p["split"], p["alpha"]) for p in points} == {(s, a) for s in ("validation", "test")
                                                           for a in (-1.0, 0.0, 1.0)}
    assert all(p["kl_nats"] == 0.0 for p in points if p["alpha"] == 0.0)
    choice = next(x for x in recs if x["type"] == "steer.choice")
    best_val = max(p["accuracy"] for p in points if p["split"] == "validation")
    assert choice["validation_accuracy"] == best_val and choice["layer"] == 2
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "alpha chosen on validation" in r.stderr

    gg = tmp_path / "v.gguf"
    r = reason("steer", "export", "--vector", str(vec), "--gguf", str(gg))
    assert r.returncode == 0, r.stderr
    back = tmp_path / "back.safetensors"
    r = reason("steer", "import", "--gguf", str(gg), "--out", str(back))
    assert r.returncode == 0, r.stderr
    assert _records(r.stdout)[0]["layers"] == [1, 2]
    from toolkit.steer.vectors import load_vector

    a, b = load_vector(vec), load_vector(back)
    assert all(bool((a.directions[k] == b.directions[k]).all()) for k in (1, 2))

    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"prompt": "ann > bob . is ann > bob ?"}) + "\n")
    runs = []
    for alpha in ("0", "4"):
        r = reason("steer", "apply", "--model", model, "--vector", str(gg), "--alpha", alpha, "--prompts",
                   str(prompts), "math 3 + 4 =", "--max-new-tokens", "4")
        assert r.returncode == 0, r.stderr
        runs.append(_records(r.stdout))
    assert [g["prompt"] for g in runs[0]] == ["math 3 + 4 =", "ann > bob . is ann > bob ?"]
    assert [g["completion"] for g in runs[0]] != [g["completion"] for g in runs[1]]
    assert runs[1][0]["alpha"] == 4.0 and runs[1][0]["layers"] == [1, 2]


def test_clear_errors(reason, tiny_dirs, tmp_path):
    import torch

    from toolkit.steer.vectors import ControlVector, save_vector

    r = reason("steer", "derive", "--model", str(tiny_dirs / "opt"), "--task", "deductive", "--n", "4",
               "--out", str(tmp_path / "x.safetensors"), "--device", "cpu")
    assert r.returncode == 2
    assert "unsupported architecture 'opt'" in r.stderr and "--layers-path" in r.stderr
    assert "Traceback" not in r.stderr

    vec = tmp_path / "n.safetensors"
    save_vector(ControlVector({0: torch.ones(32), 1: torch.ones(32)}, "neox", "gpt_neox", "mean-diff"), vec)
    r = reason("steer", "sweep", "--model", str(tiny_dirs / "llama"), "--vector", str(vec), "--task",
               "mathematical", "--n-val", "4", "--n-test", "4")
    assert r.returncode == 2
    assert "hidden size is 48" in r.stderr and "Traceback" not in r.stderr
    r = reason("steer", "export", "--vector", str(vec), "--gguf", str(tmp_path / "o.gguf"))
    assert r.returncode == 2 and "layer 0" in r.stderr

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"positive": "a"}\n')
    r = reason("steer", "derive", "--model", str(tiny_dirs / "neox"), "--pairs", str(bad), "--out", str(vec))
    assert r.returncode == 2 and "bad.jsonl:1: field 'negative'" in r.stderr
    r = reason("steer", "sweep", "--vector", str(vec), "--alphas", "x")
    assert r.returncode == 2 and "--alphas" in r.stderr
    r = reason("steer", "derive", "--model", str(tiny_dirs / "neox"), "--out", str(vec))
    assert r.returncode == 2 and "exactly one of --task or --pairs" in r.stderr


def test_help_has_examples(reason):
    for cmd in ("tasks", "derive", "apply", "sweep", "export", "import", "train"):
        r = reason("steer", cmd, "--help")
        assert r.returncode == 0 and "Example:" in r.stdout, cmd


def test_corrupted_model_weights_one_line(reason, tmp_path):
    import shutil
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / "assets" / "steer" / "model"
    bad = tmp_path / "model"
    shutil.copytree(src, bad)
    (bad / "model.safetensors").write_bytes(b"garbage")
    r = reason("steer", "derive", "--model", str(bad), "--task", "deductive", "--n", "2",
               "--out", str(tmp_path / "v.safetensors"))
    assert r.returncode == 2 and "corrupted weights" in r.stderr and len(r.stderr.strip().splitlines()) == 1
