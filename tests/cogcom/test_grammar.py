from __future__ import annotations

import pytest

from toolkit.cogcom.boxes import boxes_text, from_norm, parse_boxes, to_norm
from toolkit.cogcom.chain import last_inline_call, parse_chain
from toolkit.cogcom.steps import parse_steps
from toolkit.core.errors import InputError

# The shape of the official demonstrations (templates_v2.json): lower-case names with _i, variables in backticks.
OFFICIAL = ("Step 1: (grounding_1(the sign on the left)->bbx_1, Locate the sign on the left in the image and return "
            "its bounding box `bbx_1`.) Step 2: (OCR_1(`bbx_1`)->txt_1, Recognize the text in region `bbx_1` to get "
            "`txt_1`.) Step 3: (None, The sign reads `txt_1`, so the answer is `txt_1`.)")


def test_official_steps_parse():
    steps = parse_steps(OFFICIAL)
    assert [s.k for s in steps] == [1, 2, 3]
    assert steps[0].call.name == "GROUNDING" and steps[0].call.args == ["the sign on the left"]
    assert steps[0].call.var == "bbx_1"
    assert steps[1].call.name == "OCR" and steps[1].call.args == ["`bbx_1`"] and steps[1].call.var == "txt_1"
    assert steps[2].call is None and steps[2].description.startswith("The sign reads")


def test_steps_stop_at_descending_k():
    text = OFFICIAL + " Step 2: (OCR_2(`bbx_1`)->txt_2, again.) Step 4: (None, more.)"
    assert [s.k for s in parse_steps(text)] == [1, 2, 3]


@pytest.mark.parametrize("size", [(640, 480), (1024, 768)])
def test_box_text_round_trips_within_one_pixel(size):
    w, h = size
    for box in ([0, 0, 10, 10], [13, 7, 200, 133], [w - 50, h - 40, w - 1, h - 1], [321, 123, 322, 124]):
        back = from_norm(to_norm(box, w, h), w, h)
        assert all(abs(a - b) <= 1 for a, b in zip(box, back, strict=True)), (box, back)
    text = boxes_text([[13, 7, 200, 133], [100, 100, 150, 150]], w, h)
    assert text.count(";") == 1 and all(len(v) == 3 for v in text[2:-2].replace(";", ",").split(","))
    assert len(parse_boxes(text)) == 2


@pytest.mark.parametrize("bad", ["[[500,100,400,200]]", "[[100,100,100,200]]", "[[0,0,1000,10]]", "[[1,2,3]]"])
def test_bad_boxes_are_input_errors(bad):
    with pytest.raises(InputError):
        parse_boxes(bad)


def test_chain_errors_name_the_column():
    with pytest.raises(InputError, match="column 20: unknown manipulation 'FOO'"):
        parse_chain("GROUNDING(red)->b; FOO(b)")
    with pytest.raises(InputError, match=r"column 10: '\(' is never closed"):
        parse_chain("GROUNDING(red->b")
    # an open bracket would swallow the ';' and the rest of the chain into one phrase
    with pytest.raises(InputError, match=r"column 10: '\(' is never closed"):
        parse_chain("GROUNDING(red sign->b; CROP(b)")
    with pytest.raises(InputError, match=r"column 20: unmatched '\)'"):
        parse_chain("GROUNDING(red sign))->b")


def test_malformed_inline_calls_are_errors_of_their_step():
    """A model's last call that does not close, or whose brackets do not pair up, comes back as a call carrying
    its error (the runtime records it as that step's error), never the call before it."""
    unclosed = last_inline_call("GROUNDING(red sign)->b gives a box; CROP_AND_ZOOMIN(b, 2")
    assert unclosed.name == "CROP_AND_ZOOMIN" and "column 37: unclosed call" in unclosed.extra["error"]
    crossed = last_inline_call("GROUNDING(red sign)->b; CROP_AND_ZOOMIN([[1,2,3,4], 2)")
    assert crossed.name == "CROP_AND_ZOOMIN" and "unmatched ')'" in crossed.extra["error"]


def test_inline_call_is_the_last_one_case_insensitive():
    call = last_inline_call("First grounding_1(the red sign)->bbx_1 gives a box; "
                            "then crop_and_zoomin([[086,540,400,760]], 2)")
    assert call.name == "CROP_AND_ZOOMIN" and call.args == ["[[086,540,400,760]]", "2"]
    assert last_inline_call("So the answer is 7.") is None
