"""`import-vad` on hand-written items in the benchmark's layout (`<category>/<concept>/vqa.json`)."""

import json

from PIL import Image


def _vad(tmp_path, questions, images=("1.png",)):
    d = tmp_path / "VAD" / "strategic" / "maze"
    d.mkdir(parents=True)
    for name in images:
        Image.new("RGB", (8, 8)).save(d / name)
    (d / "vqa.json").write_text(json.dumps({"questions": questions}))
    return tmp_path / "VAD"


Q = {"image_filename": "1.png", "question_type": "counting",
     "question_multiple_choice": "How many exits does the maze have? (a) 1 (b) 2", "answer_multiple_choice": "(b)"}


def test_inline_options_leave_the_question_and_are_asked_once(cli, tmp_path):
    """The lettered options become choices; the question every mode asks lists them once ("Options: 1, 2")."""
    from toolkit.dsg.prompts import direct_question, with_options

    code, out, err = cli("dsg", "import-vad", str(_vad(tmp_path, [Q])))
    assert code == 0, err
    rec = json.loads(out)
    assert rec["question"] == "How many exits does the maze have?"
    assert rec["choices"] == ["1", "2"] and rec["answer"] == "2"
    asked = direct_question(with_options(rec["question"], rec["choices"]))
    assert asked.count("1") == 1 and "(a)" not in asked and "Options: 1, 2." in asked


def test_missing_image_is_refused_at_import_or_counted_with_skip_bad(cli, tmp_path):
    lost = {**Q, "image_filename": "gone.png"}
    root = _vad(tmp_path, [Q, lost])
    out_file = tmp_path / "items.jsonl"
    code, out, err = cli("dsg", "import-vad", str(root), "-o", str(out_file))
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and not out_file.exists(), err
    assert "item strategic/maze/0001" in lines[0] and "gone.png: no such file" in lines[0]
    code, out, err = cli("dsg", "import-vad", str(root), "--skip-bad")
    assert code == 0 and [json.loads(x)["id"] for x in out.splitlines()] == ["strategic/maze/0000"]
    assert "skipped 1 bad line(s)" in err and "gone.png" in err
