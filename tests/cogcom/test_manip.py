from __future__ import annotations

import pytest
from PIL import Image

from toolkit.cogcom.calc import calculate
from toolkit.cogcom.chain import parse_call
from toolkit.cogcom.manip import Workspace, crop_and_zoomin
from toolkit.core.errors import InputError


def _image() -> Image.Image:
    im = Image.new("RGB", (200, 100), (240, 240, 240))
    for x in range(200):
        im.putpixel((x, x // 2), (x, 255 - x, 30))
    return im


def _ws(boxes=None, text="7") -> Workspace:
    return Workspace(_image(), lambda im, phrase, budget: list(boxes or [[20, 10, 60, 50]]),
                     lambda im, budget, mode: text, 448)


def test_crop_and_zoomin_is_pillow_bicubic_of_the_original_pixels():
    ws = _ws()
    ws.run(parse_call("GROUNDING(thing)->b"))
    value = ws.run(parse_call("CROP_AND_ZOOMIN(b, 3)->i"))
    expected = _image().crop((20, 10, 60, 50)).resize((120, 120), Image.Resampling.BICUBIC)
    assert ws.images[value.image].tobytes() == expected.tobytes()
    assert crop_and_zoomin(_image(), [0, 0, 10, 5], 2).size == (20, 10)


def test_line_draws_on_a_copy():
    ws = _ws()
    before = ws.images["img_0"].tobytes()
    value = ws.run(parse_call("LINE([[100,100;900,900]])->l"))
    assert ws.images["img_0"].tobytes() == before
    assert ws.images[value.image].tobytes() != before
    assert ws.images[value.image].getpixel((100, 50)) == (255, 0, 0)


def test_calculate():
    assert calculate("3.5+1.25") == 4.75
    assert calculate("$4.25 + $1.50") == 5.75
    for bad in ("__import__('os')", "x + 1", "9 ** 99999", "open('f')", "'a' * 3"):
        with pytest.raises(InputError):
            calculate(bad)


def test_calculate_uses_variables_and_counting_counts_boxes():
    ws = _ws(boxes=[[1, 1, 5, 5], [10, 10, 15, 15], [20, 20, 25, 25]], text="$4.25")
    ws.run(parse_call("GROUNDING(dots)->b"))
    assert ws.run(parse_call("COUNTING(b)->n")).data == 3.0
    ws.run(parse_call("OCR(b)->t"))
    assert ws.run(parse_call("CALCULATE(`t` + n * 2)->s")).data == 10.25


def test_variable_before_assignment_and_wrong_kinds():
    ws = _ws()
    with pytest.raises(InputError, match="'q' is used before it is assigned"):
        ws.run(parse_call("OCR(q)->t"))
    ws.run(parse_call("OCR(img_0)->t"))
    with pytest.raises(InputError, match="needs a box"):
        ws.run(parse_call("CROP_AND_ZOOMIN(t, 2)->i"))
    with pytest.raises(InputError, match="inverted"):
        ws.run(parse_call("CROP_AND_ZOOMIN([[500,500,100,100]], 2)->i"))


def test_local_prompt_has_one_image_slot_per_turn_image():
    from toolkit.cogcom.images import image_part
    from toolkit.cogcom.local import prompt_and_images

    class NoTemplate:
        chat_template = None

    im = Image.new("RGB", (8, 8), "white")
    messages = [{"role": "user", "content": [image_part(im), {"type": "text", "text": "Question: q"}]},
                {"role": "assistant", "content": "CROP_AND_ZOOMIN([[0,0,500,500]], 2)"},
                {"role": "user", "content": [image_part(im), {"type": "text", "text": "Based on this new image"}]}]
    prompt, images = prompt_and_images(NoTemplate(), messages)
    assert len(images) == 2 and prompt.count("<image>") == 2
    assert prompt == ("USER: <image>\nQuestion: q ASSISTANT: CROP_AND_ZOOMIN([[0,0,500,500]], 2) "
                      "USER: <image>\nBased on this new image ASSISTANT:")
