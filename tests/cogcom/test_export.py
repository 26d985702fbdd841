"""The LLaVA export in the official CoM layout, the official zoom (x2) and loop length (11 replies)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from toolkit.cogcom.export import Unexportable, export_chain
from toolkit.cogcom.manip import Workspace
from toolkit.cogcom.planner import steps_for
from toolkit.cogcom.runtime import solve_item
from toolkit.cogcom.steps import parse_steps
from toolkit.cogcom.synth import Rules, build_tree, find_paths
from toolkit.core.errors import InputError

DATA = Path(__file__).parent / "data"
SIGN = [10, 10, 110, 40]  # on a 640x480 image: [[015,020,171,083]] in the official 0-999 convention
STEPS = ("Step 1: (GROUNDING_1(the sign)->bbx_1, Find the signs `bbx_1`.) "
         "Step 2: (OCR_1(`bbx_1`)->txt_1, Read `txt_1`.) Step 3: (None, So the answer is `txt_1`.)")


class First(random.Random):
    """Always the first wording, so the record can be compared with the hand-written fixture."""

    def choice(self, seq):
        return seq[0]


def _workspace(read: str = "GATE 7") -> Workspace:
    return Workspace(Image.new("RGB", (640, 480), "white"), lambda im, phrase, budget: [SIGN],
                     lambda im, budget, mode: read, 448)


def _plan(question: str) -> str:
    return " ".join(f"Step {i}: ({c}, {d})" for i, (c, d) in enumerate(steps_for(question), start=1))


def _gpt(record: dict) -> str:
    return " ".join(t["value"] for t in record["conversations"] if t["from"] == "gpt")


def test_inserted_zoom_matches_the_hand_written_official_layout(tmp_path):
    nodes = build_tree(parse_steps(STEPS), _workspace(), "GATE 7", Rules())
    tree = {"question": "What does the sign say?", "answer": "GATE 7", "nodes": nodes}
    record = export_chain(tree, find_paths(nodes)[-1], Image.new("RGB", (640, 480), "white"), "scene.png",
                          tmp_path, "x", First())
    assert record == json.loads((DATA / "llava_zoom_path.json").read_text())
    assert Image.open(tmp_path / record["images"][1]).size == (200, 60)  # x2, the official runtime's zoom


def test_a_planned_zoom_path_is_written_as_the_official_call(tmp_path):
    question = "What does the red sign say?"
    nodes = build_tree(parse_steps(_plan(question)), _workspace(), "GATE 7", Rules())
    tree = {"question": question, "answer": "GATE 7", "nodes": nodes}
    path = find_paths(nodes)[-1]
    assert any(nodes[k].get("crop") for k in path)  # the path has its own crop: it must still be written
    record = export_chain(tree, path, Image.new("RGB", (640, 480), "white"), "scene.png", tmp_path, "p",
                          random.Random(0))
    gpt = _gpt(record)
    assert "CROP_AND_ZOOMIN([[015,020,171,083]], 2)" in gpt
    assert re.findall(r"answer is", gpt, re.I) == ["answer is"] and gpt.endswith("So the answer is GATE 7.")
    assert not re.search(r"img_\d+\s*\(\d+x\d+\)", json.dumps(record))  # no internal names with sizes
    assert "OCR(`img_1`)" in gpt and "in the new image as GATE 7" in gpt
    tokens = sum(t["value"].count("<image>") for t in record["conversations"])
    assert tokens == len(record["images"]) == 2
    assert Image.open(tmp_path / record["images"][1]).size == (200, 60)


def test_auto_zoom_is_an_option_and_inserted_factor_follows_it(tmp_path):
    assert ", 2)->img_1" in steps_for("What does the red sign say?")[1][0]
    assert ", auto)->img_1" in steps_for("What does the red sign say?", "auto")[1][0]
    with pytest.raises(InputError, match="zoom '3'"):
        steps_for("What does the red sign say?", "3")
    nodes = build_tree(parse_steps(STEPS), _workspace(), "GATE 7", Rules())
    tree = {"question": "What does the sign say?", "answer": "GATE 7", "nodes": nodes}
    record = export_chain(tree, find_paths(nodes)[-1], Image.new("RGB", (640, 480), "white"), "scene.png",
                          tmp_path, "a", First(), zoom="auto")
    assert "CROP_AND_ZOOMIN([[015,020,171,083]], 4)" in _gpt(record)  # area ratio 102 -> x4
    assert Image.open(tmp_path / record["images"][1]).size == (400, 120)


def test_a_crop_of_an_earlier_image_is_refused_not_miswritten(tmp_path):
    question = "What is the total price of the red tag and the blue tag?"
    nodes = build_tree(parse_steps(_plan(question)), _workspace("$1.50"), "3", Rules())
    path = find_paths(nodes)[-1]
    tree = {"question": question, "answer": "3", "nodes": nodes}
    with pytest.raises(Unexportable, match="crops img_0 while the current image is img_1"):
        export_chain(tree, path, Image.new("RGB", (640, 480), "white"), "scene.png", tmp_path, "c", First())
    assert not (tmp_path / "images").exists()  # nothing half-written


@pytest.mark.parametrize("box", ["[[100,100,600,600]]", "[[000,000,990,990]]"])
def test_the_loop_allows_eleven_replies_by_default(box):
    calls = []

    def complete(messages, max_tokens=256):
        calls.append(len(messages))
        return SimpleNamespace(text=f"CROP_AND_ZOOMIN({box}, 2)")

    item = {"id": "q", "question": "What does the red sign say?"}
    out = solve_item(item, Image.new("RGB", (640, 480), "white"), "vlm", grounder=None, reader=None, budget=448,
                     llm=SimpleNamespace(complete=complete), execute="images")
    assert len(calls) == 11 and out["stopped"] == "max-turns"
    # zooming the whole image again and again stops growing it at the pixel cap: an error step, not a crash
    errors = [s["error"] for s in out["steps"] if s["error"]]
    assert any("over 16777216 px" in e for e in errors) == (box == "[[000,000,990,990]]")
