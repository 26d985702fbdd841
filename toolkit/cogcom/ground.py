"""The OpenCV grounder: a phrase -> color (and shape) lexicon -> HSV mask -> contours -> pixel boxes.

It sees the image as a VLM would, shrunk to at most `budget` px on the long side; boxes come back in the
image's own pixels. Colors are told apart by the nearest palette hue, so each scene object's color is one class.
"""

from __future__ import annotations

import re
from functools import cache

import numpy as np
from PIL import Image

from toolkit.cogcom.scenes import COLORS

REGIONS = {"sign", "signs", "tag", "tags", "tray", "trays", "label", "board", "box", "region", "price"}
SHAPE_WORDS = {"circle": "circle", "circles": "circle", "dot": "circle", "dots": "circle", "square": "square",
               "squares": "square", "triangle": "triangle", "triangles": "triangle", "shape": "", "shapes": ""}
MIN_SATURATION, MIN_VALUE = 90, 70


def perceive(image: Image.Image, budget: int) -> tuple[Image.Image, float]:
    """The image a budget-limited perceiver sees (long side <= budget) and its scale from the original."""
    scale = min(1.0, budget / max(image.size))
    if scale >= 1.0:
        return image, 1.0
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, Image.Resampling.BICUBIC), scale


def _palette_hues() -> dict[str, float]:
    import cv2

    hues = {}
    for name, rgb in COLORS.items():
        hsv = cv2.cvtColor(np.uint8([[list(rgb)]]), cv2.COLOR_RGB2HSV)[0, 0]
        hues[name] = float(hsv[0])
    return hues


def parse_phrase(phrase: str) -> tuple[str | None, str]:
    """(color, target) where target is 'region', a shape name, or '' for any blob."""
    words = re.findall(r"[a-z]+", phrase.lower())
    color = next((w for w in words if w in COLORS), None)
    if any(w in REGIONS for w in words):
        return color, "region"
    shape = next((SHAPE_WORDS[w] for w in words if w in SHAPE_WORDS), "")
    return color, shape


@cache
def _nearest_palette_color() -> tuple[np.ndarray, tuple[str, ...]]:
    """For each of OpenCV's 180 hues, the index of the nearest palette hue (circular; ties to the first)."""
    hues = _palette_hues()
    names = tuple(hues)
    ref = np.array([hues[n] for n in names], dtype=np.float32)
    diff = np.abs(np.arange(180, dtype=np.float32)[:, None] - ref[None, :])
    diff = np.minimum(diff, 180 - diff)  # hue is circular
    return np.argmin(diff, axis=-1).astype(np.uint8), names


def color_mask(rgb: np.ndarray, color: str) -> np.ndarray:
    import cv2

    hsv = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2HSV)
    nearest, names = _nearest_palette_color()
    ok = (hsv[..., 1] >= MIN_SATURATION) & (hsv[..., 2] >= MIN_VALUE) & (nearest[hsv[..., 0]] == names.index(color))
    return ok.astype(np.uint8) * 255


def _shape_of(contour, mask: np.ndarray) -> str:
    """Triangle, square or circle from the filled share of the bounding box (pixels, not the contour polygon,
    which undercounts small blobs) and the vertex count of the simplified outline."""
    import cv2

    peri = cv2.arcLength(contour, True)
    approx = cv2.approxPolyDP(contour, 0.08 * peri, True)
    x, y, w, h = cv2.boundingRect(contour)
    fill = float(np.count_nonzero(mask[y:y + h, x:x + w])) / max(1, w * h)
    if fill < 0.6 or (len(approx) == 3 and fill < 0.63):  # ideal shares: triangle 0.5, circle 0.79, square 1
        return "triangle"
    if fill > 0.93:
        return "square"
    return "circle"


def ground(image: Image.Image, phrase: str, budget: int) -> list[list[int]]:
    """Pixel boxes of what `phrase` names, largest first for regions, reading order for shapes."""
    import cv2

    color, target = parse_phrase(phrase)
    if color is None:
        return []
    seen, scale = perceive(image.convert("RGB"), budget)
    mask = color_mask(np.asarray(seen), color)
    area_total = mask.shape[0] * mask.shape[1]
    if target == "region":
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        rects = [cv2.boundingRect(c) for c in contours]
        rects = [r for r in rects if r[2] * r[3] >= 12]
        rects.sort(key=lambda r: -r[2] * r[3])
    else:
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        rects = []
        for c in contours:
            x, y, w, h = cv2.boundingRect(c)
            if w * h > 0.02 * area_total or w * h < 2:  # a tray frame or a speck
                continue
            if max(w, h) > 3 * min(w, h) + 2:  # a stroke of a frame, not a shape
                continue
            if target and cv2.contourArea(c) >= 30 and _shape_of(c, mask) != target:  # tiny blobs: shape unknowable
                continue
            rects.append((x, y, w, h))
        rects.sort(key=lambda r: (r[1] // 4, r[0]))
    inv = 1.0 / scale
    return [[round(x * inv), round(y * inv), round((x + w) * inv), round((y + h) * inv)] for x, y, w, h in rects]
