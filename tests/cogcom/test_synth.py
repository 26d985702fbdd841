from __future__ import annotations

import random
from pathlib import Path

import pytest
from PIL import Image

from toolkit.cogcom.export import export_chain, zoom_for_ratio
from toolkit.cogcom.importcom import import_com
from toolkit.cogcom.manip import Workspace
from toolkit.cogcom.metrics import anls, exact, numeric, vqa
from toolkit.cogcom.steps import parse_steps
from toolkit.cogcom.synth import Rules, build_tree, find_paths, path_correct
from toolkit.core.errors import InputError

DATA = Path(__file__).parent / "data"
STEPS = ("Step 1: (GROUNDING_1(the sign)->bbx_1, Find the signs `bbx_1`.) "
         "Step 2: (OCR_1(`bbx_1`)->txt_1, Read `txt_1`.) Step 3: (None, So the answer is `txt_1`.)")
BOX_A, BOX_B = [10, 10, 110, 40], [300, 200, 340, 220]  # two candidate signs: A reads right, B wrong


def _workspace() -> Workspace:
    return Workspace(Image.new("RGB", (640, 480), "white"), lambda im, phrase, budget: [BOX_A, BOX_B],
                     lambda im, budget, mode: "GATE 7" if im.width == 100 else "PARK", 448)


def test_dfs_paths_on_a_hand_built_tree():
    nodes = build_tree(parse_steps(STEPS), _workspace(), "GATE 7", Rules())
    assert set(nodes) == {"-1,0--0,0", "-1,0--0,1", "0,0--1,0", "0,1--1,1", "1,0--2,0", "1,1--2,1"}
    assert nodes["-1,0--0,0"]["onbox"] == BOX_A and nodes["-1,0--0,1"]["onbox"] == BOX_B
    paths = find_paths(nodes)
    assert paths == [["-1,0--0,0", "0,0--1,0"], ["-1,0--0,0", "0,0--1,0", "1,0--2,0"]]
    assert all(path_correct(nodes, p, "GATE 7") for p in paths)


def test_official_rules_flag_the_known_false_positive_ours_do_not():
    official = build_tree(parse_steps(STEPS), _workspace(), "GATE 7", Rules(official_ocr=True, trust_final=True))
    paths = find_paths(official)
    # the wrong read "PARK" (distance 0.83 >= 0.5) is found and its text replaced by the answer
    assert ["-1,0--0,1", "0,1--1,1"] in paths
    assert official["0,1--1,1"]["return"] == "GATE 7" and official["0,1--1,1"]["evidence"] == "PARK"
    assert not path_correct(official, ["-1,0--0,1", "0,1--1,1"], "GATE 7")
    # ...the right read (distance 0) is not, and every final step counts as found
    assert official["0,0--1,0"]["found"] is False and official["1,0--2,0"]["found"] is True
    ours = build_tree(parse_steps(STEPS), _workspace(), "GATE 7", Rules())
    assert not ours["0,1--1,1"]["found"] and not ours["1,1--2,1"]["found"]


def test_counting_found_in_words_and_not_split():
    steps = parse_steps("Step 1: (GROUNDING_1(dots)->b, d) Step 2: (COUNTING_1(`b`)->n, c) Step 3: (None, e)")
    nodes = build_tree(steps, _workspace(), "two", Rules())
    assert len([k for k in nodes if k.startswith("-1,0--")]) == 1  # COUNTING takes the whole set: no split
    assert nodes["0,0--1,0"]["found"] and len(find_paths(nodes)) == 2


def test_export_images_match_image_tokens(tmp_path):
    image = Image.new("RGB", (640, 480), "white")
    nodes = build_tree(parse_steps(STEPS), _workspace(), "GATE 7", Rules())
    tree = {"question": "What does the sign say?", "answer": "GATE 7", "nodes": nodes}
    record = export_chain(tree, ["-1,0--0,0", "0,0--1,0", "1,0--2,0"], image, "scene.png", tmp_path, "x",
                          random.Random(0))
    tokens = sum(turn["value"].count("<image>") for turn in record["conversations"])
    assert tokens == len(record["images"]) == 2  # area ratio 640*480/(100*30) = 102 >= 36: a crop was inserted
    assert Image.open(tmp_path / record["images"][1]).size == (200, 60)  # x2, as the official runtime zooms
    assert record["conversations"][-1]["value"].endswith("read GATE 7. So the answer is GATE 7.")


def test_zoom_for_ratio():
    assert zoom_for_ratio(40) == 2 and zoom_for_ratio(70) == 3 and zoom_for_ratio(100) == 4
    assert zoom_for_ratio(35.9) is None


def test_import_com_reads_two_samples():
    trees = import_com(DATA / "com_two.jsonl")
    assert [t["id"] for t in trees] == ["tvqa-1", "tdiuc-7"]
    assert trees[0]["paths"] == [["-1,0--0,0", "0,0--1,0"], ["-1,0--0,0", "0,0--1,0", "1,0--2,0"]]
    assert trees[1]["paths"] == [["-1,0--0,0", "0,0--1,0"]]  # the `*` parent resolved to node 0,0


def test_import_com_without_final_com(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "answer": "a", "final_com": {}}\n{"question": "q"}\n')
    with pytest.raises(InputError, match="bad.jsonl:1: field 'final_com'"):
        import_com(bad)


def test_metrics_hand_values():
    assert exact("Gate 7.", ["GATE 7"]) == 1.0 and exact("$4.50", ["4.5"]) == 1.0
    assert anls("GATF 7", ["gate 7"]) == pytest.approx(1 - 1 / 6)
    assert anls("PARK", ["gate 7"]) == 0.0  # similarity 1/6 is under tau 0.5
    assert vqa("2", ["2", "2", "3", "two"]) == pytest.approx(2 / 3)
    assert vqa("2", ["2", "2", "2", "3"]) == 1.0
    assert numeric("about 4.750", ["4.75"]) == 1.0 and numeric("4.76", ["4.75"]) == 0.0
