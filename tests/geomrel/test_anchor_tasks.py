"""The anchor's advanced point-in-shape wording, generated items of the anchor's other tasks, items drawn per target
relation, and resumable training."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("shapely")
pytest.importorskip("lark")

from toolkit.geomrel.verify import verify_item  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ADVANCED_SHAPE = ROOT / "assets" / "geomrel" / "fixture" / "anchor-advanced-shape.jsonl"
HOLD = ["rhombus", "trapezoid"]


def _planted_flags(path: Path, n: int) -> dict[str, str | None]:
    """Read a hand-written fixture, check every correctly labelled item agrees with a reason, and return the verdict's
    flag for each planted wrong label (keyed by why it is wrong)."""
    from toolkit.core.records import BadLines
    from toolkit.geomrel.load import load_file

    items = load_file(path, False, BadLines())
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    verdicts = [verify_item(it) for it in items]
    assert len(items) == n and all(v["reader"] == "anchor" and v["reason"] for v in verdicts)
    correct = [(r["relation"], v["status"]) for r, v in zip(rows, verdicts, strict=True) if not r["planted_wrong"]]
    assert correct == [(r["relation"], "agree") for r in rows if not r["planted_wrong"]]
    return {r["planted_reason"]: v.get("flag") for r, v in zip(rows, verdicts, strict=True) if r["planted_wrong"]}


def test_advanced_point_in_shape_wording_reads_and_flags_its_planted_labels():
    """Hand-written items in the released advanced shape file's wording ("exactly symmetrical with respect to",
    "on the extension of TN in the opposite direction", kites, "Is point Q inside ...?" and "What is the relationship
    between point R and ...?")."""
    flags = _planted_flags(ADVANCED_SHAPE, 8)
    assert flags == {"V and W both lie on line SU": "ill-posed", "L is the midpoint of EK, inside": "mislabel"}


MORE = ROOT / "assets" / "geomrel" / "fixture" / "anchor-advanced-more.jsonl"


def test_rectangle_angle_names_transversal_pairs_and_segment_roles_read_and_flag_their_planted_labels():
    """Hand-written items in the wording of the released advanced files' later parts: angle names in a rectangle with
    a diagonal (complementary, alternate interior, adjacent, diagonal), the transversal figure without its order and
    side clauses, "Is KR the midline / the altitude / the height / a radius / a diameter / one side of ...?", and the
    shape file's "which lies on the segment", "angle K = angle N", "equal in length to the radius r" clauses."""
    flags = _planted_flags(MORE, 18)
    assert flags == {"angle PQS lies between a side and a diagonal and is never 90 degrees": "ill-posed",
                     "two angles at one intersection are vertical whatever the second line does": "mislabel",
                     "one angle is exterior, the other interior, on opposite sides": "mislabel",
                     "a chord that misses the centre is not a diameter": "mislabel",
                     "DU runs along the radius HD, so it cannot be tangent": "ill-posed",
                     "Q is the midpoint of KP, inside the square": "mislabel"}


def test_generated_anchor_tasks_read_back_and_agree_with_their_proven_labels():
    """Angle names, collinearity, a point in a shape and a segment in a shape, in the anchor's wording."""
    from toolkit.geomrel.anchor_tasks import generate_anchor

    tasks = ["angle", "collinear", "shape", "segment"]
    items = generate_anchor(8, 5, "basic", tasks, exclude=HOLD) + generate_anchor(4, 5, "advanced", ["angle"])
    assert {it["relation"][:2] for it in items} == {"AA", "LP", "SP", "SL"}
    assert any("line" in it["question"] and "parallel to" in it["question"] for it in items[8:])  # transversal
    verdicts = [(it["relation"], verify_item(it)) for it in items]
    assert [(code, v["reader"], v["status"]) for code, v in verdicts] == \
        [(code, "anchor", "agree") for code, _ in verdicts]


def test_cli_generates_anchor_tasks(reason):
    r = reason("geomrel", "generate", "--wording", "anchor", "--domains", "angle,segment", "--n", "2", "--seed", "3")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [row["relation"][:2] for row in rows] == ["AA", "SL"] and all(row["wording"] == "anchor" for row in rows)
    assert reason("geomrel", "generate", "--wording", "anchor", "--domains", "circle").returncode == 2


def test_targeted_items_are_proven_in_their_relation_and_the_verifier_agrees():
    """Forced perpendicular / parallel / equal items are rare in plain draws; drawn per relation, every one is
    proven in it by the exact solver, and the text verifier derives the same relation."""
    from toolkit.geomrel.targeted import generate_targeted

    want = {"line:perpendicular": 2, "line:parallel": 2, "angle:equal": 1, "angle:complementary": 1,
            "line:intersecting": 1}
    items = generate_targeted(want, 9, "basic", exclude=HOLD)
    got = [f"{it['domain']}:{it['canonical']}" for it in items]
    assert got == [k for k, n in want.items() for _ in range(n)]
    assert all(verify_item(it)["status"] == "agree" for it in items)


def test_training_resumes_from_its_checkpoint_to_the_same_weights(tmp_path):
    """Two chunks of 3 steps end where one run of 6 steps does."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from safetensors.torch import load_file as load_weights

    from toolkit.geomrel.classifier import train
    from toolkit.geomrel.generate import generate

    items = generate(12, 4, "basic", ["line", "angle", "shape"])
    one = train(items, tmp_path / "one", max_steps=6, batch=4, seed=0, checkpoint=tmp_path / "one.pt")
    first = train(items, tmp_path / "two", max_steps=6, batch=4, seed=0, checkpoint=tmp_path / "two.pt",
                  chunk_steps=3)
    assert first["steps"] == 3 and not first["done"]
    second = train(items, tmp_path / "two", max_steps=6, batch=4, seed=0, checkpoint=tmp_path / "two.pt")
    assert second["steps"] == 6 and second["done"] and one["done"]
    a, b = load_weights(tmp_path / "one" / "model.safetensors"), load_weights(tmp_path / "two" / "model.safetensors")
    assert all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)
