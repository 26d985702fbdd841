"""The real perceivers on held-out-font scenes: OpenCV finds the red sign, tesseract reads its crop exactly."""

from __future__ import annotations

import numpy as np
import pytest

from toolkit.cogcom.boxes import iou
from toolkit.cogcom.ground import ground
from toolkit.cogcom.manip import crop_and_zoomin
from toolkit.cogcom.metrics import normalize

from .conftest import need_tesseract


def test_cv_grounder_finds_the_red_sign(red_sign_scenes):
    for item, image in red_sign_scenes:
        boxes = ground(image, "red sign", 448)
        assert boxes and iou(boxes[0], item["boxes"][0]) >= 0.7, (item["id"], boxes, item["boxes"])


def test_tesseract_reads_the_zoomed_crops_exactly(red_sign_scenes):
    need_tesseract()
    from toolkit.cogcom.ocr import ocr

    for item, image in red_sign_scenes:
        box = ground(image, "red sign", 448)[0]
        x = min(4, max(2, 448 // max(box[2] - box[0], box[3] - box[1])))
        text = ocr(crop_and_zoomin(image, box, x), 448, "crop")
        assert normalize(text) == normalize(item["answer"]), (item["id"], text, item["answer"])


def test_shapes_counted_in_the_zoomed_tray_not_in_the_shrunk_scene(tmp_path):
    from toolkit.cogcom.scenes import make_item

    hits_zoomed = hits_whole = 0
    for seed in range(10000, 10006):
        item, image = make_item(seed, "heldout", "count", tmp_path, ".")
        color, shape = item["targets"][0].split()[0], item["question"].split()[2].rstrip("s")
        tray = ground(image, item["targets"][0], 448)[0]
        x = min(4, max(2, 448 // max(tray[2] - tray[0], tray[3] - tray[1])))
        hits_zoomed += len(ground(crop_and_zoomin(image, tray, x), f"{color} {shape}", 448)) == int(item["answer"])
        hits_whole += len(ground(image, f"{color} {shape}", 448)) == int(item["answer"])
    assert hits_zoomed == 6 and hits_whole <= 4


def test_in_process_tesseract_reads_as_the_program_does(red_sign_scenes, monkeypatch):
    """tesserocr (one engine per page mode, in this process) and the pytesseract fallback give the same text."""
    need_tesseract()
    from toolkit.cogcom import ocr as ocr_module

    if ocr_module.engine_name() != "tesserocr":
        pytest.skip("tesserocr is not installed (the pytesseract path is the one tested above)")
    crops = [crop_and_zoomin(image, item["boxes"][0], 2) for item, image in red_sign_scenes]
    in_process = [ocr_module.ocr(c, 448, "crop") for c in crops]
    monkeypatch.setattr(ocr_module, "_engine", lambda psm: None)
    assert ocr_module.engine_name() == "pytesseract"
    assert [ocr_module.ocr(c, 448, "crop") for c in crops] == in_process
    assert all(in_process)


def test_color_mask_is_the_nearest_palette_hue_per_pixel():
    import cv2

    from toolkit.cogcom.ground import MIN_SATURATION, MIN_VALUE, _palette_hues, color_mask

    rgb = np.random.default_rng(0).integers(0, 256, size=(64, 96, 3), dtype=np.uint8)
    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV).astype(float)
    hues = _palette_hues()
    names = list(hues)
    diff = np.abs(hsv[..., :1] - np.array([hues[n] for n in names])[None, None, :])
    nearest = np.argmin(np.minimum(diff, 180 - diff), axis=-1)  # hue is circular
    bright = (hsv[..., 1] >= MIN_SATURATION) & (hsv[..., 2] >= MIN_VALUE)
    for i, name in enumerate(names):
        expected = (bright & (nearest == i)).astype(np.uint8) * 255
        assert np.array_equal(color_mask(rgb, name), expected), name
    assert sum(np.count_nonzero(color_mask(rgb, n)) for n in names) == np.count_nonzero(bright)
