"""`engine_info` names the tesseract that reads: tesserocr's bundled library when it loads, else the program."""

from __future__ import annotations

import pytest

from toolkit.cogcom import ocr


def test_in_process_engine_reports_the_library_not_the_program(monkeypatch):
    tesserocr = pytest.importorskip("tesserocr")
    monkeypatch.setattr(ocr, "_engine", lambda psm: object())  # an engine that loaded
    monkeypatch.setattr(ocr, "program_version", lambda: "5.3.0")  # Debian's program on PATH
    library = tesserocr.tesseract_version().splitlines()[0].split()[-1]
    info = ocr.engine_info()
    assert info["engine"] == "tesserocr" == ocr.engine_name()
    assert info["tesseract"] == library and info["program"] == "5.3.0"
    assert library.count(".") == 2 and library[0].isdigit()


def test_program_engine_and_none(monkeypatch):
    pytest.importorskip("pytesseract")
    monkeypatch.setattr(ocr, "_engine", lambda psm: None)
    monkeypatch.setattr(ocr, "program_version", lambda: "5.3.0")
    assert ocr.engine_info()["engine"] == "pytesseract" == ocr.engine_name()
    assert ocr.engine_info()["tesseract"] == "5.3.0"
    monkeypatch.setattr(ocr, "program_version", lambda: None)
    assert ocr.engine_info() == {"engine": None, "tesseract": None, "program": None, "tessdata": None}


def test_info_line_says_which_tesseract_reads():
    from cli.info import ocr_line

    both = {"engine": "tesserocr", "tesseract": "5.5.4", "program": "5.3.0"}
    assert ocr_line(both) == "tesseract 5.5.4 in-process (tesserocr); tesseract program 5.3.0 not used"
    assert ocr_line({**both, "program": None}) == "tesseract 5.5.4 in-process (tesserocr)"
    assert ocr_line({"engine": "pytesseract", "tesseract": "5.3.0", "program": "5.3.0"}) == \
        "tesseract program 5.3.0 (pytesseract)"
    assert ocr_line({"engine": None, "tesseract": None, "program": None}).startswith("missing")
