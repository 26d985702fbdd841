"""`maps import-qa` on a file in the anchor's qa.json layout (a list of problems whose `golden_answer` is an
object from each asked quantity to its LaTeX value), written by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.core.errors import InputError
from toolkit.maps.qa_import import import_qa

QA = Path(__file__).parent / "data" / "anchor_qa.json"


@pytest.fixture
def images(tmp_path):
    folder = tmp_path / "img"
    folder.mkdir()
    for pid in ("1-9(d)", "1-11", "2-1(a)", "3-4-2"):  # 3-4 asks a numbered part: its figure is 3-4-2.jpg
        (folder / f"{pid}.jpg").write_bytes(b"\xff\xd8")
    return folder


def test_golden_answer_objects_become_one_question_per_quantity(images):
    rows = list(import_qa(QA, images))
    assert [r["id"] for r in rows] == ["qa-1-9(d)", "qa-1-11-1", "qa-1-11-2", "qa-2-1(a)", "qa-3-4"]
    assert [r["circuit"] for r in rows[1:3]] == ["qa-1-11", "qa-1-11"]
    got = {r["id"]: (r["value"], r["unit"]) for r in rows}
    assert got["qa-1-9(d)"] == (pytest.approx(-0.5), "A")
    assert got["qa-1-11-1"] == (pytest.approx(-3.14), "V") and got["qa-1-11-2"] == (pytest.approx(1.14), "V")
    assert got["qa-2-1(a)"] == (pytest.approx(1670.0), "Ω")
    assert got["qa-3-4"] == (pytest.approx(0.014), "A")
    assert rows[1]["target"] == "$U_{\\mathrm{AB}}$" and rows[1]["text"].endswith("$U_{\\mathrm{AB}}$ = ?")
    assert rows[0]["text"] == "求题图 1-9(d)所示电路中的电流I。" and rows[0]["is_forward"] is True
    assert rows[0]["image"] == str(images / "1-9(d).jpg") and rows[-1]["image"] == str(images / "3-4-2.jpg")


def test_an_unreadable_golden_value_names_its_quantity(images, tmp_path):
    data = json.loads(QA.read_text(encoding="utf-8"))
    data[1]["golden_answer"]["$U_{\\mathrm{BC}}$"] = "$\\infty$"
    bad_file = tmp_path / "qa.json"
    bad_file.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InputError, match=r"problem 1: field 'golden_answer.\$U_\{\\mathrm\{BC\}\}\$': no number"):
        list(import_qa(bad_file, images))
    bad = []
    rows = list(import_qa(bad_file, images, skip_bad=True, bad=bad))
    assert len(rows) == 3 and len(bad) == 1  # the whole problem is left out, and said so


def test_cli_reads_the_anchor_file(reason, images):
    r = reason("maps", "import-qa", str(QA), "--images", str(images))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(rows) == 5 and all(r["type"] == "maps.question" for r in rows)
