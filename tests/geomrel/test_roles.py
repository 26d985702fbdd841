"""The classifier's "roles" input encoding: read from the text alone, and models without it still read "points"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("lark")

from toolkit.geomrel.classifier import canonical_words, role_words  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ASK = "What is the positional relationship between line {} and line {}?\nAnswer choices: A. Parallel B. Perpendicular"


def _line(shape: str, a: str, b: str) -> str:
    return f"{shape} is a square. " + ASK.format(a, b)


def test_role_encoding_ignores_letters_and_separates_sides_from_diagonals():
    # the same question with other letters (in another alphabetical order) reads the same
    assert role_words(_line("GOTN", "OT", "GT")) == role_words(_line("ABCD", "BC", "AC"))
    assert role_words(_line("GOTN", "OT", "GT"))[:3] == ["q_line", "a_side", "a_vertex"]
    side_side, side_diagonal = role_words(_line("ABCD", "AB", "BC")), role_words(_line("ABCD", "AB", "AC"))
    assert "b_side" in side_side and "b_diagonal" in side_diagonal and side_side != side_diagonal
    # points are named by role: v0..v3 in the square's order, n0 for the first constructed point
    text = "WXYZ is a square. M is the midpoint of XZ. " + ASK.format("MW", "YZ")
    words = role_words(text)
    assert "n0 is the midpoint of v1 v3" in " ".join(words) and "a_midpoint" in words and "b_side" in words


def test_role_encoding_reads_only_the_text():
    items = [json.loads(line) for line in (ROOT / "assets/geomrel/examples/items.jsonl").read_text().splitlines()]
    item = items[0]
    bare = {"question": item["question"]}
    assert role_words(bare["question"]) == role_words(item["question"])
    # an unreadable sentence keeps its points named by order of appearance, as the "points" encoding does
    odd = "Point Q is somewhere. " + ASK.format("QR", "RS")
    assert role_words(odd)[role_words(odd).index("|") + 1:] == canonical_words(odd)


def test_a_model_config_without_the_encoding_key_reads_points(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from toolkit.geomrel import classifier
    from toolkit.geomrel.generate import generate

    items = generate(8, 3, "basic", ["line", "angle", "shape"])
    classifier.train(items, tmp_path / "old", max_steps=1, batch=4, seed=0, encoding="points")
    classifier.train(items, tmp_path / "new", max_steps=1, batch=4, seed=0, encoding="roles")
    assert "geomrel_encoding" not in json.loads((tmp_path / "old" / "config.json").read_text())
    assert json.loads((tmp_path / "new" / "config.json").read_text())["geomrel_encoding"] == "roles"
    old, new = classifier.load(tmp_path / "old"), classifier.load(tmp_path / "new")
    assert classifier.encoding_of(old[0]) == "points" and classifier.encoding_of(new[0]) == "roles"

    def refuse(question):
        raise AssertionError("a points model read the roles encoding")

    monkeypatch.setitem(classifier.ENCODINGS, "roles", refuse)
    assert all(letter in "ABCDE" for letter in classifier.predict(*old, items))
    with pytest.raises(AssertionError):
        classifier.predict(*new, items)
