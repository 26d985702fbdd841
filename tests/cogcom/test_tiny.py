"""Claim 3's pieces: boxes as 100 word tokens, training conversations the runtime can replay, crop IoU traced
back through crops of crops, answers naming a variable, the word-level model's spacing closed up."""

from __future__ import annotations

import numpy as np
import pytest

from toolkit.cogcom.boxes import iou, parse_boxes
from toolkit.cogcom.chain import last_inline_call
from toolkit.cogcom.ground import perceive
from toolkit.cogcom.manip import Workspace
from toolkit.cogcom.runtime import crop_on_scene, resolve_variables, step_record
from toolkit.cogcom.tiny import BINS, GRID, bins_text, cell_edge, conversation, grid_window, holds, to_bins


def test_bins_are_single_words_of_the_box_grammar():
    assert bins_text([0, 7, 42, 99]) == "[[000,070,420,990]]"
    assert parse_boxes(bins_text([3, 4, 50, 60])) == [[30, 40, 500, 600]]
    assert to_bins([100, 100, 100, 100], 1024, 768)[2:] == [11, 14]  # never empty
    assert to_bins([0, 0, 1024, 768], 1024, 768) == [0, 0, BINS - 1, BINS - 1]


def _replay(scene, messages):
    """Run the conversation's replies through the runtime's workspace, as `solve --policy vlm` does."""
    ws = Workspace(scene, lambda *a: [], lambda image, budget, mode: "TEXT", 448)
    steps = []
    for turn, m in enumerate(messages):
        if m["role"] == "assistant" and (call := last_inline_call(m["content"])) is not None:
            steps.append(step_record(len(steps) + 1, call, ws.run(call, f"turn {turn}"), "", ws, turn))
    return ws, steps


def test_training_conversation_replays_in_the_runtime(red_sign_scenes):
    item, scene = red_sign_scenes[0]
    gold = item["boxes"][0]
    messages = conversation(scene, item["question"], gold, "TEXT")
    assert [m["role"] for m in messages] == ["user", "assistant"] * 4
    shown = [p["image"] for m in messages if m["role"] == "user" for p in m["content"] if p["type"] == "image"]
    ws, steps = _replay(scene, messages)
    assert [s["name"] for s in steps] == ["CROP_AND_ZOOMIN", "CROP_AND_ZOOMIN", "OCR"]
    # the images the model was shown are the runtime's own crops (at the budget)
    for im, name in zip(shown[1:], ("img_1", "img_2"), strict=True):
        assert np.array_equal(np.asarray(im), np.asarray(perceive(ws.images[name], 448)[0]))
    fine = crop_on_scene(steps)
    assert iou(fine, gold) >= 0.7, (fine, gold)
    coarse = crop_on_scene(steps[:1])
    assert coarse[0] < gold[0] and coarse[1] < gold[1] and coarse[2] > gold[2] and coarse[3] > gold[3]
    assert resolve_variables("`txt_1`", ws) == "TEXT"


def test_shifted_coarse_crop_still_teaches_the_sign(red_sign_scenes):
    item, scene = red_sign_scenes[1]
    gold = item["boxes"][0]
    w, h = scene.size
    moved = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
             if grid_window(gold, w, h, shift=(dx, dy)) != grid_window(gold, w, h)
             and holds(grid_window(gold, w, h, shift=(dx, dy)), gold, w, h)]
    assert moved
    for shift in moved:
        _, steps = _replay(scene, conversation(scene, item["question"], gold, "T", shift=shift))
        assert iou(crop_on_scene(steps), gold) >= 0.6


def test_coarse_crop_is_the_token_cells_around_the_sign():
    # 8 x 8 tokens on a 1024 x 768 scene: a cell is 128 x 96 px; the sign's centre (700, 300) is in cell (5, 3)
    sign = [660, 290, 740, 310]
    window = grid_window(sign, 1024, 768)
    assert window == [cell_edge(4, GRID), cell_edge(2, GRID), cell_edge(7, GRID), cell_edge(5, GRID)]
    assert bins_text(window) == "[[500,250,880,630]]"
    assert holds(window, sign, 1024, 768)
    # kept inside the image at the border, and only the token cell (not the pixel) decides the words
    assert grid_window([5, 5, 60, 20], 1024, 768)[:2] == [0, 0]
    assert grid_window([1000, 740, 1020, 760], 1024, 768)[2:] == [BINS - 1, BINS - 1]
    assert grid_window([650, 290, 730, 310], 1024, 768) == window


def test_answers_name_variables_and_spacing_is_closed_up():
    from PIL import Image

    from toolkit.cogcom.local import close_up
    from toolkit.cogcom.manip import Value

    ws = Workspace(Image.new("RGB", (8, 8)), lambda *a: [], lambda *a: "", 448)
    ws.values["txt_1"], ws.values["n"] = Value("text", "STOP 42"), Value("number", 4.5)
    assert resolve_variables("` txt_1 `", ws) == "STOP 42"
    assert resolve_variables("`n` apples, `img_0`, `nope`", ws) == "4.5 apples, `img_0`, `nope`"
    assert close_up("CROP_AND_ZOOMIN ([ [ 120, 340, 200, 370 ] ], 2)-> img_1") == \
        "CROP_AND_ZOOMIN([[120,340,200,370]], 2)->img_1"
    assert close_up("So the answer is ` txt_1 `.") == "So the answer is `txt_1`."


@pytest.mark.parametrize("reply", ["CROP_AND_ZOOMIN([[050,340,310,470]], 2)->img_1", "So the answer is `txt_1`.",
                                   "OCR(img_2)->txt_1"])
def test_tiny_tokenizer_has_every_reply_word(tiny_cogcom_model, reply):
    from toolkit.core.vlm import load_vlm

    vlm = load_vlm(tiny_cogcom_model, device="cpu")
    ids = vlm.tokenizer(reply, add_special_tokens=False)["input_ids"]
    assert vlm.tokenizer.unk_token_id not in ids
    from toolkit.cogcom.local import close_up

    assert close_up(vlm.clean(vlm.tokenizer.decode(ids))) == reply
