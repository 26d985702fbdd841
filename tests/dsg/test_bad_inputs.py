import json

import pytest

from tests.dsg.conftest import SCHEMAS


def _items(tmp_path, split, **change):
    rec = next(json.loads(x) for x in (split / "items.jsonl").read_text().splitlines() if '"maze"' in x)
    rec["image"] = str(split / rec["image"])
    rec.update(change)
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    return path


def test_schema_files(cli, tmp_path):
    cyc = tmp_path / "c.schema.json"
    cyc.write_text(json.dumps({"concept": "c", "final": ["a"], "nodes": [
        {"id": "a", "question": "a", "parents": ["b"]}, {"id": "b", "question": "b", "parents": ["a"]}]}))
    code, _, err = cli("dsg", "schema", "--check", str(cyc))
    assert code == 2 and "cycle" in err and str(cyc) in err and len(err.strip().splitlines()) == 1
    (tmp_path / "n.txt").write_text("a maze is a puzzle\n")
    code, _, err = cli("dsg", "schema", "--check", str(tmp_path / "n.txt"))
    assert code == 2 and "unparsable schema notation" in err
    code, out, _ = cli("dsg", "schema", "--show", str(SCHEMAS / "tictactoe.schema.json"))
    assert code == 0 and "level 1: marks <- board" in out


@pytest.mark.parametrize(("args", "message"), [
    (("--concepts", "spirals"), "unknown concept"),
    (("--styles", "neon"), "unknown style"),
    (("--n", "0"), "--n 0: must be at least 1"),
])
def test_gen_rejects(cli, tmp_path, args, message):
    code, _, err = cli("dsg", "gen", "--out", str(tmp_path / "o"), *args)
    assert code == 2 and message in err


def test_run_rejects(cli, split, tmp_path, tiny_dsg_vlm):
    code, _, err = cli("dsg", "run", "--items", str(_items(tmp_path, split, concept="chess")), "--model",
                       str(tiny_dsg_vlm))
    assert code == 2 and "has no schema" in err
    empty = tmp_path / "schemas"
    empty.mkdir()
    (empty / "maze.schema.json").write_text(json.dumps({"concept": "maze", "final": ["size"], "nodes": [
        {"id": "size", "question": "size", "parents": []}]}))
    code, _, err = cli("dsg", "run", "--items", str(_items(tmp_path, split)), "--schemas", str(empty), "--model",
                       str(tiny_dsg_vlm))
    assert code == 2 and "no composer registered for concept 'maze'" in err
    code, _, err = cli("dsg", "run", "--items", str(_items(tmp_path, split, image="nope.png")), "--model",
                       str(tiny_dsg_vlm))
    assert code == 2 and "nope.png: no such image file" in err
    corrupt = tmp_path / "bad.png"
    corrupt.write_bytes(b"not a png")
    code, _, err = cli("dsg", "run", "--items", str(_items(tmp_path, split, image=str(corrupt))), "--model",
                       str(tiny_dsg_vlm))
    assert code == 2 and "corrupt or unreadable image" in err
    code, _, err = cli("dsg", "run", "--items", str(_items(tmp_path, split, image=str(corrupt))), "--model",
                       str(tiny_dsg_vlm), "--skip-bad")
    assert code == 2 and "all 1 item(s) rejected; first: " in err and len(err.strip().splitlines()) == 1
    good = _items(tmp_path, split).read_text()
    _items(tmp_path, split, image=str(corrupt)).open("a").write(good)
    code, out, err = cli("dsg", "run", "--items", str(tmp_path / "items.jsonl"), "--model", str(tiny_dsg_vlm),
                         "--skip-bad")
    assert code == 0 and "skipped 1 bad line(s)" in err and out.count('"dsg.answer"') == 1
    text_model = tmp_path / "llama"
    text_model.mkdir()
    (text_model / "config.json").write_text(json.dumps({"model_type": "llama"}))
    code, _, err = cli("dsg", "run", "--items", str(_items(tmp_path, split)), "--model", str(text_model))
    assert code == 2 and "not a vision-language model" in err


def test_resume_keeps_flushed_records(cli, split, tmp_path, tiny_dsg_vlm):
    out = tmp_path / "pred.jsonl"
    lines = (split / "items.jsonl").read_text().splitlines()
    first = tmp_path / "first.jsonl"
    first.write_text("\n".join(json.dumps({**json.loads(x), "image": str(split / json.loads(x)["image"])})
                               for x in lines[:2]) + "\n")
    code, _, err = cli("dsg", "run", "--items", str(first), "--model", str(tiny_dsg_vlm), "-o", str(out))
    assert code == 0, err
    before = out.read_text()
    with out.open("a") as f:  # an interrupted item: groundings flushed, no answer
        f.write(json.dumps({"type": "dsg.grounding", "schema": 1, "id": json.loads(lines[2])["id"], "node": "size",
                            "answer": "4"}) + "\n")
    allp = tmp_path / "all.jsonl"
    allp.write_text("\n".join(json.dumps({**json.loads(x), "image": str(split / json.loads(x)["image"])})
                              for x in lines[:3]) + "\n")
    code, _, err = cli("dsg", "run", "--items", str(allp), "--model", str(tiny_dsg_vlm), "-o", str(out), "--resume")
    assert code == 0 and "2 kept from --resume" in err
    text = out.read_text()
    assert text.startswith(before) and text.count('"dsg.answer"') == 3


def _vad_items(tmp_path, split) -> str:
    """Two VAD-layout maze questions imported as the anchor writes them (no task, lettered options)."""
    from toolkit.dsg.vad import import_vad

    image = next((split / "images").glob("*.png"))
    d = tmp_path / "VAD" / "strategic" / "maze"
    d.mkdir(parents=True)
    (d / image.name).symlink_to(image)
    (d / "vqa.json").write_text(json.dumps({"questions": [
        {"image_filename": image.name, "question_type": "counting",
         "question_multiple_choice": "How many exits does the maze have? (a) one (b) two (c) three",
         "answer_multiple_choice": "(b)"},
        {"image_filename": image.name, "question_type": "reasoning",
         "question_multiple_choice": "Can the start reach the goal? (a) yes (b) no", "answer_multiple_choice": "(a)"},
    ]}))
    path = tmp_path / "vad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in import_vad(tmp_path / "VAD")))
    return str(path)


def test_program_composer_refuses_imported_questions(cli, split, tmp_path):
    """The maze composer computes the generated tasks' answers; on an imported VAD question it used to answer
    'none' (not an option) and exit 0. Now: one line naming the item, exit 2, before any model call."""
    code, out, err = cli("dsg", "run", "--items", _vad_items(tmp_path, split), "--mode", "dsg",
                         "--compose", "program", "--llm", "openai:x@http://127.0.0.1:9")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and out == "", err
    assert lines[0] == ("error: item strategic/maze/0000: --compose program: the maze composer answers only the tasks "
                        "maze.path, maze.length; this item has no task (an imported question); use --compose vlm")


def banana(messages, n=1, **_):
    return ["banana"] * n


def yes_banana(messages, n=1, **_):
    text = json.dumps(messages)
    return ["yes" if "reach the goal" in text else "banana"] * n


def test_answers_outside_the_choices_are_counted_and_none_valid_is_an_error(cli, split, tmp_path):
    """A multiple-choice answer naming no option is kept as an abstention (in_choices false) and counted on
    stderr; a run in which no answer names an option ends with exit 1 and one line."""
    items = _vad_items(tmp_path, split)
    code, out, err = cli("dsg", "run", "--items", items, "--mode", "direct", "--llm",
                         f"py:{__name__}:yes_banana")
    assert code == 0, err
    answers = [json.loads(x) for x in out.splitlines()]
    assert [(a["answer"], a["in_choices"]) for a in answers] == [("banana", False), ("yes", True)]
    assert "1 of 2 multiple-choice answer(s) name none of the options" in " ".join(err.split())
    code, out, err = cli("dsg", "run", "--items", items, "--mode", "direct", "--llm", f"py:{__name__}:banana")
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and out.count('"in_choices": false') == 2, err
    assert lines[0].startswith("error: none of the 2 multiple-choice answer(s) names one of its options (first: "
                               "item strategic/maze/0000 answered 'banana')")
