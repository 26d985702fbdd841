"""Shared cogcom fixtures: a few held-out scenes drawn once per session, tesseract required in CI."""

from __future__ import annotations

import os
import shutil

import pytest


def need_tesseract() -> None:
    if shutil.which("tesseract") is None:
        if os.environ.get("CI"):
            pytest.fail("tesseract is missing in CI (make sysdeps installs tesseract-ocr tesseract-ocr-eng)")
        pytest.skip("tesseract is not installed (make sysdeps)")


@pytest.fixture(scope="session")
def red_sign_scenes(tmp_path_factory):
    """Three held-out-font scenes whose question reads the red sign."""
    from toolkit.cogcom.scenes import make_item

    out = tmp_path_factory.mktemp("scenes")
    found, seed = [], 10000
    while len(found) < 3:
        item, image = make_item(seed, "heldout", "read", out, ".")
        if item["targets"] == ["red sign"]:
            found.append((item, image))
        seed += 1
    return found


@pytest.fixture(scope="session")
def tiny_cogcom_model(tmp_path_factory):
    """An untrained tiny cogcom model built from config (small: tokenizer and loading tests)."""
    from dataclasses import replace

    from toolkit.cogcom.tiny import TINY_SPEC, build

    out = tmp_path_factory.mktemp("cogcom-tiny") / "model"
    spec = replace(TINY_SPEC, image_size=32, patch_size=16, vision_hidden=16, vision_layers=1, vision_heads=2,
                   text_hidden=32, text_layers=1, text_heads=2)
    build(out, ["What does the red sign say?"], seed=0, spec=spec)
    return out
