"""`reason maps` commands given nothing they can work on end with one line and exit 2 (no ngspice needed)."""

from __future__ import annotations

from pathlib import Path

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "maps"


def test_perceive_on_the_questions_file_names_it(reason):
    """The questions file instead of the circuits: one line naming it, not an empty run that exits 0."""
    questions = ASSETS / "examples" / "questions.jsonl"
    r = reason("maps", "perceive", str(questions))
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and r.stdout == "", r.stderr
    assert lines[0].startswith(f"error: {questions}: only maps.question records (") and "maps.circuit" in lines[0]


def test_import_qa_of_nothing_is_an_error(reason, tmp_path):
    """--skip-bad over a file in which every problem is rejected imports nothing: an error naming the file and
    the first rejection, not 0 records and exit 0; so is an empty problem list."""
    (tmp_path / "img").mkdir()
    qa = tmp_path / "qa.json"
    qa.write_text('[{"id": 7, "question": "Find I"}, {"id": 8, "question": "?"}]')
    r = reason("maps", "import-qa", str(qa), "--images", str(tmp_path / "img"), "--skip-bad")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and r.stdout == "", r.stderr
    assert lines[0].startswith(f"error: {qa}: all 2 problem(s) rejected; first: {qa}: problem 0: field 'answer'")
    qa.write_text("[]")
    r = reason("maps", "import-qa", str(qa), "--images", str(tmp_path / "img"))
    assert r.returncode == 2 and r.stderr.strip() == f"error: {qa}: no problems in the file"


def test_readme_paths_resolve_outside_the_checkout(reason, tmp_path):
    """`--model assets/maps/ppm-exemplar` and `assets/maps/examples/...` as the README writes them work from any
    directory (the shipped copy), and a path that is neither here nor shipped still names itself."""
    r = reason("maps", "perceive", "assets/maps/examples/images/small-7-00000.png", "--model",
               "assets/maps/ppm-exemplar", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert '"reader": "exemplar"' in r.stdout and str(ASSETS / "ppm-exemplar") in r.stdout
    r = reason("maps", "perceive", "assets/maps/examples/images/small-7-00000.png", "--model",
               "assets/maps/no-such-model", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.strip() == "error: --model assets/maps/no-such-model: no such directory"
