from __future__ import annotations

from pathlib import Path

import pytest

from tests.aha.synth import make_dataset

SMALL = dict(image_size=32, patch_size=8, vision_hidden=32, vision_layers=1, text_hidden=32, text_layers=1)


@pytest.fixture(scope="session")
def synth_data(tmp_path_factory) -> Path:
    return make_dataset(tmp_path_factory.mktemp("aha-data"), seeds=range(2))


@pytest.fixture(scope="session")
def tiny_vlm(tmp_path_factory, synth_data) -> Path:
    from toolkit.aha.samples import load_samples
    from toolkit.aha.tiny import TinySpec, build_tiny_vlm

    out = tmp_path_factory.mktemp("aha-tiny")
    texts = [t for s in load_samples(synth_data) for t in (s.question, s.answer)]
    build_tiny_vlm(out, texts, TinySpec(**SMALL), seed=0)
    return out
