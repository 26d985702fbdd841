"""OCR with tesseract: psm 7 (one line) for crops, psm 11 (sparse text) for whole scenes.

The tesseract library is called in-process through `tesserocr` when it is installed (one engine per page
mode, loaded once); otherwise `pytesseract` starts the tesseract program for every call (about 0.3 s each).

The reader sees at most `budget` px on the long side. Crops are binarized (Otsu) to dark text on white with a
white margin, which is what tesseract's line model expects; light-on-dark signs are inverted first.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from functools import cache

import numpy as np
from PIL import Image, ImageOps

from toolkit.cogcom.ground import perceive
from toolkit.core.errors import RuntimeFailure

INSTALL = "apt-get install -y tesseract-ocr tesseract-ocr-eng (or make sysdeps)"


def require_tesseract() -> None:
    from toolkit.core.extras import require

    require("vision")
    if _engine(PSM["crop"]) is None and shutil.which("tesseract") is None:
        raise RuntimeFailure(f"OCR needs the tesseract program; install it with: {INSTALL}")


PSM = {"crop": 7, "scene": 11}


def tessdata_dir() -> str | None:
    """The folder holding eng.traineddata: $TESSDATA_PREFIX, the tesseract program's own, or Debian's."""
    env = os.environ.get("TESSDATA_PREFIX")
    if env and os.path.isfile(os.path.join(env, "eng.traineddata")):
        return env
    exe = shutil.which("tesseract")
    if exe:
        res = subprocess.run([exe, "--list-langs"], capture_output=True, text=True, check=False)
        m = re.search(r'"(.+?)"', res.stdout + res.stderr)
        if m and os.path.isfile(os.path.join(m.group(1), "eng.traineddata")):
            return m.group(1)
    found = sorted(glob.glob("/usr/share/tesseract-ocr/*/tessdata/eng.traineddata"))
    return os.path.dirname(found[-1]) if found else None


@cache
def _engine(psm: int):
    """An in-process tesseract engine for a page mode (tesserocr), or None to use the tesseract program."""
    try:
        import tesserocr
    except ImportError:
        return None
    path = tessdata_dir()
    if path is None:
        return None
    try:
        return tesserocr.PyTessBaseAPI(path=path.rstrip("/") + "/", lang="eng", psm=psm)
    except RuntimeError:
        return None


def engine_name() -> str:
    return "tesserocr" if _engine(PSM["crop"]) is not None else "pytesseract"


def program_version() -> str | None:
    """The tesseract program's version (what pytesseract runs), None when it is not on PATH."""
    exe = shutil.which("tesseract")
    if exe is None:
        return None
    try:
        done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    first = (done.stdout or done.stderr).splitlines()
    return first[0].split()[-1] if first else "unknown"


def engine_info() -> dict:
    """The OCR engine that ocr() runs and the tesseract version doing the reading: the library inside the
    tesserocr wheel when it loads (which need not be the version of the Debian program), else the program
    through pytesseract; engine None when neither can run. `program` is the program's version either way."""
    program = program_version()
    if _engine(PSM["crop"]) is not None:
        import tesserocr

        library = tesserocr.tesseract_version().splitlines()[0].split()[-1]
        return {"engine": "tesserocr", "tesseract": library, "program": program, "tessdata": tessdata_dir()}
    try:
        import pytesseract  # noqa: F401 - only whether it is there
    except ImportError:
        return {"engine": None, "tesseract": None, "program": program, "tessdata": None}
    return {"engine": "pytesseract" if program else None, "tesseract": program, "program": program,
            "tessdata": None}


def _read(image: Image.Image, psm: int) -> str:
    engine = _engine(psm)
    if engine is not None:
        engine.SetImage(image)
        return engine.GetUTF8Text()
    import pytesseract

    return pytesseract.image_to_string(image, config=f"--psm {psm}")


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
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # tesseract's own threads only slow small crops down
    seen, _ = perceive(image.convert("RGB"), budget)
    if mode == "crop":
        return clean(_read(binarize(seen), PSM["crop"]))
    text = _read(seen, PSM["scene"])
    return "\n".join(clean(line) for line in text.splitlines() if clean(line))
