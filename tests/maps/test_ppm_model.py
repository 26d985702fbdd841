"""The learned PPM: its token text, a short training run, loading, and any vision-language model directory."""

import json
import random
import shutil

import pytest

from toolkit.maps.circuit import to_netlist
from toolkit.maps.equiv import equivalent
from toolkit.maps.generate import draw_circuit
from toolkit.maps.grid_text import grid_text, parse_grid_text

pytestmark = pytest.mark.skipif(shutil.which("ngspice") is None, reason="needs `make sysdeps`")


def records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("tier", ["small", "medium", "dynamic"])
def test_grid_text_carries_the_whole_circuit(tier):
    rng = random.Random(f"grid-text-{tier}")
    for _ in range(40):
        circuit = draw_circuit(tier, rng)
        text = grid_text({"rows": circuit["rows"], "cols": circuit["cols"]}, circuit["edges"])
        back = parse_grid_text(text)
        assert equivalent(to_netlist(back), to_netlist(circuit)), text


def test_grid_text_parser_is_lenient_but_needs_a_header():
    assert parse_grid_text("") is None and parse_grid_text("R 1k ;") is None and parse_grid_text("9 9 ;") is None
    circuit = parse_grid_text("2 2 ; 0 0 h V - 5 mU ; 1 0 h R 1k ; 0 1 v bogus ; 0 0 v R ;")
    kinds = [e["kind"] for e in circuit["edges"]]
    assert kinds == ["V", "R", "wire", "R"]  # grid order; an unknown kind reads as a wire
    assert circuit["edges"][0]["flip"] and circuit["edges"][0]["meter"] == "U1"
    assert circuit["edges"][1]["value"] == "<Empty>" and not circuit["edges"][1]["shown"]


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    from tests.conftest import run_reason

    out = tmp_path_factory.mktemp("ppm") / "c"
    r = run_reason("maps", "generate", "--tier", "small", "--n", "3", "--seed", "11", "--out-dir", str(out))
    assert r.returncode == 0, r.stderr
    return out


def test_thirty_training_steps_lower_the_loss(images, tmp_path):
    from toolkit.maps.ppm_model import PPMSpec, TrainConfig, encode_folders, train

    data = encode_folders([images], 64)
    assert data["pixels"].shape == (3, 64, 64)
    assert data["pixels"].max() > 150 and data["pixels"].min() == 0  # ink is bright, paper 0
    spec = PPMSpec(image_size=64, embed_dim=8, depths=(1, 1), decoder_dim=32)  # a 2-stage tower: 8-px tokens
    summary = train(data, tmp_path / "m", spec, TrainConfig(minutes=5, max_steps=30, batch_size=3, lr=3e-3))
    assert summary["steps"] == 30
    assert summary["last_loss"] < 0.8 * summary["first_loss"]
    assert all(p.stat().st_size < 4_000_000 for p in (tmp_path / "m").iterdir())


def test_cli_trains_and_perceives_with_a_learned_ppm(images, reason, tmp_path):
    model = tmp_path / "ppm"
    r = reason("maps", "train", "--data", str(images), "--out", str(model), "--steps", "2", "--image-size", "128",
               "--batch-size", "2", "--embed-dim", "8", "--decoder-dim", "32", "--cache", str(tmp_path / "cache.npz"))
    assert r.returncode == 0, r.stderr
    summary = records(r.stdout)[0]
    assert summary["kind"] == "learned" and summary["steps"] == 2 and (tmp_path / "cache.npz").is_file()
    image = sorted((images / "images").iterdir())[0]
    out = reason("maps", "perceive", str(image), "--model", str(model))
    assert out.returncode == 0, out.stderr
    rows = records(out.stdout)
    assert [r["reader"] for r in rows] == ["ppm"] and rows[0]["id"] == image.stem and "grid_text" in rows[0]
    r = reason("maps", "train", "--data", str(images), "--out", str(model), "--image-size", "100")
    assert r.returncode == 2 and "--image-size 100" in r.stderr
    (model / "ppm.json").write_text("{")
    r = reason("maps", "perceive", str(image), "--model", str(model))
    assert r.returncode == 2 and "ppm.json" in r.stderr


def test_any_vision_language_model_directory_reads_images(images, reason, tmp_path):
    from toolkit.core.tiny_vlm import TinySpec, build_tiny_vlm

    build_tiny_vlm(tmp_path / "vlm", ["Convert the circuit diagram to SPICE code: R1 1 0 1k"],
                   TinySpec(image_size=32, patch_size=8, vision_hidden=32, vision_layers=1, text_hidden=32,
                            text_layers=1), seed=0)
    image = sorted((images / "images").iterdir())[0]
    r = reason("maps", "perceive", str(image), "--model", str(tmp_path / "vlm"))
    assert r.returncode == 0, r.stderr
    row = records(r.stdout)[0]
    assert row["reader"] == "vlm" and row["id"] == image.stem and isinstance(row["parsed"], bool)
    (tmp_path / "notvlm").mkdir()
    (tmp_path / "notvlm" / "config.json").write_text('{"model_type": "llama"}')
    r = reason("maps", "perceive", str(image), "--model", str(tmp_path / "notvlm"))
    assert r.returncode == 2 and "not a vision-language model" in r.stderr


def test_a_misplaced_word_in_the_value_slot_reads_as_unread():
    """A learned reader's slip ('R' where a value belongs) must not reach the netlist as a value."""
    from toolkit.maps.grid_text import parse_grid_text

    edges = parse_grid_text("2 2 ; 0 0 h R R ; 0 0 v V + 10 ; 1 0 h R 4.7k mU ;")["edges"]
    read = {(e["a"][0], e["a"][1], e["b"][0] == e["a"][0]): e for e in edges}
    assert read[(0, 0, True)]["value"] == "<Empty>" and read[(0, 0, True)]["shown"] is False
    assert read[(0, 0, False)]["value"] == "10" and read[(1, 0, True)]["value"] == "4.7k"


def test_nearest_margin_is_zero_on_a_tie_and_one_on_an_exact_match():
    import numpy as np

    from toolkit.maps.ppm import _nearest_margin

    bank = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 3.0]], dtype="float32")
    sq = (bank * bank).sum(1)
    labels = np.array(["a", "b", "b"])
    assert _nearest_margin(np.array([1.0, 0.0], dtype="float32"), bank, sq, labels)[1] == pytest.approx(0.0, abs=1e-6)
    pick, margin = _nearest_margin(np.array([2.0, 0.0], dtype="float32"), bank, sq, labels)
    assert pick == 1 and margin == pytest.approx(1.0)
    pick, margin = _nearest_margin(np.array([0.5, 0.0], dtype="float32"), bank, sq, labels)
    assert pick == 0 and margin == pytest.approx(1 - 0.5 / 1.5)
    assert _nearest_margin(np.array([9.0, 9.0], dtype="float32"), bank, sq, np.array(["a"] * 3))[1] == 1.0
