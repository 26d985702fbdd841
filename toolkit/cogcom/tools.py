"""Perceiver plug-ins: `--grounder cv|vlm|py:MOD:FN` and `--ocr tesseract|py:MOD:FN`.

A `py:` grounder is `fn(image, phrase, budget) -> [[x0,y0,x1,y1], ...]` in pixels (e.g. a GroundingDINO
wrapper); a `py:` reader is `fn(image, budget, mode) -> text` with mode crop|scene (e.g. PaddleOCR).
"""

from __future__ import annotations

import importlib

from PIL import Image

from toolkit.cogcom.boxes import from_norm, parse_boxes
from toolkit.cogcom.ground import perceive
from toolkit.core.errors import InputError


def _load(spec: str, option: str):
    module, _, attr = spec[3:].rpartition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise InputError(f"{option} {spec}: cannot load ({exc})") from None


def make_grounder(spec: str, llm=None):
    if spec == "cv":
        from toolkit.core.extras import require

        require("vision")
        from toolkit.cogcom.ground import ground

        return ground
    if spec == "vlm":
        if llm is None:
            raise InputError("--grounder vlm needs --llm")
        return lambda image, phrase, budget: vlm_ground(llm, image, phrase, budget)
    if spec.startswith("py:"):
        return _load(spec, "--grounder")
    raise InputError(f"--grounder {spec}: expected cv, vlm or py:MOD:FN")


def make_reader(spec: str):
    if spec == "tesseract":
        return _tesseract

    if spec.startswith("py:"):
        return _load(spec, "--ocr")
    raise InputError(f"--ocr {spec}: expected tesseract or py:MOD:FN")


def _tesseract(image: Image.Image, budget: int, mode: str) -> str:
    """tesseract, checked on first use (a chain without OCR runs without it)."""
    from toolkit.cogcom.ocr import ocr, require_tesseract

    require_tesseract()
    return ocr(image, budget, mode)


def vlm_ground(llm, image: Image.Image, phrase: str, budget: int) -> list[list[int]]:
    """Ask a VLM for `[[x0,y0,x1,y1]]` (0-999) of the phrase; boxes it cannot give read as none."""
    from toolkit.cogcom.images import image_part

    seen, _ = perceive(image, budget)
    text = llm.complete([{"role": "user", "content": [
        image_part(seen), {"type": "text", "text": f"Give the bounding box of {phrase} as [[x0,y0,x1,y1]] "
                                                   "with coordinates from 000 to 999."}]}], max_tokens=64).text
    try:
        return [from_norm(b, *image.size) for b in parse_boxes(text, "grounder reply")]
    except InputError:
        return []
