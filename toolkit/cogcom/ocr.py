"""OCR with tesseract (pytesseract): psm 7 (one line) for crops, psm 11 (sparse text) for whole scenes.

The reader sees at most `budget` px on the long side. Crops are binarized (Otsu) to dark text on white with a
white margin, which is what tesseract's line model expects; light-on-dark signs are inverted first.
"""

from __future__ import annotations

import os
import re
import shutil

import numpy as np
from PIL import Image, ImageOps

from toolkit.cogcom.ground import perceive
from toolkit.core.errors import RuntimeFailure

INSTALL = "apt-get install -y tesseract-ocr tesseract-ocr-eng (or make sysdeps)"


def require_tesseract() -> None:
    from toolkit.core.extras import require

    require("vision")
    if shutil.which("tesseract") is None:
        raise RuntimeFailure(f"OCR needs the tesseract program; install it with: {INSTALL}")


def binarize(image: Image.Image) -> Image.Image:
    import cv2

    gray = np.asarray(image.convert("L"))
    _, bw = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if np.count_nonzero(bw) < bw.size / 2:  # mostly dark: light text on a dark sign
        bw = 255 - bw
    bw = _drop_border_ink(bw)
    return ImageOps.expand(Image.fromarray(bw), border=12, fill=255)


def _drop_border_ink(bw: np.ndarray) -> np.ndarray:
    """Ink touching the crop's edge is the sign's border or the background, not a glyph: whiten it."""
    import cv2

    n, labels = cv2.connectedComponents((bw == 0).astype(np.uint8), connectivity=4)
    edge = set(np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))) - {0}
    if edge:
        bw = bw.copy()
        bw[np.isin(labels, list(edge))] = 255
    return bw


def clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def ocr(image: Image.Image, budget: int, mode: str = "crop") -> str:
    """Text of a crop (one line) or of a whole scene (lines joined by newlines)."""
    import pytesseract

    os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # tesseract's own threads only slow small crops down
    seen, _ = perceive(image.convert("RGB"), budget)
    if mode == "crop":
        return clean(pytesseract.image_to_string(binarize(seen), config="--psm 7"))
    text = pytesseract.image_to_string(seen, config="--psm 11")
    return "\n".join(clean(line) for line in text.splitlines() if clean(line))
