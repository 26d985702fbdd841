"""The model's recorded grid geometry: FailGen grids of any camera size are brought to it."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from toolkit.aha.detect import detect_local
from toolkit.aha.geometry import GEOMETRY_FILE, Geometry, GridNormalizer, read_geometry, write_geometry
from toolkit.aha.samples import load_samples
from toolkit.aha.vlm import load_vlm
from toolkit.core.errors import InputError
from toolkit.core.records import BadLines

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "aha"
EXAMPLES_64 = ASSETS / "examples" / "samples.jsonl"
EXAMPLES_128 = ASSETS / "examples-128" / "samples.jsonl"


@pytest.fixture(scope="module")
def shipped():
    from toolkit.aha import DEFAULT_MODEL

    return load_vlm(DEFAULT_MODEL, device="cpu")


def test_shipped_model_gives_the_same_verdicts_on_64_and_128_px_renders(shipped):
    # the same 16 fresh-seed samples rendered by FailGen with 64-px and with 128-px cameras
    small, large = load_samples(EXAMPLES_64), load_samples(EXAMPLES_128)
    assert [s.sample_id for s in small] == [s.sample_id for s in large]
    assert Image.open(large[0].image).size[1] == 3 * 128 + 4 * 2
    a = list(detect_local(shipped, small, "shipped", max_new_tokens=3))
    b = list(detect_local(shipped, large, "shipped", max_new_tokens=3))
    same = sum(x["label"] == y["label"] for x, y in zip(a, b, strict=True))
    assert same >= 0.95 * len(small), same
    right = sum(v["label"] == s.label for v, s in zip(b, large, strict=True))
    assert right >= 0.9 * len(large), right


def test_a_grid_the_model_cannot_map_is_an_error_record_naming_the_sample(shipped, tmp_path):
    samples = load_samples(EXAMPLES_128)[:3]
    odd = tmp_path / "odd.png"
    Image.new("RGB", (300, 100), "gray").save(odd)
    samples[1].image = odd
    bad = BadLines()
    verdicts = list(detect_local(shipped, samples, "shipped", batch_size=2, max_new_tokens=2, bad=bad))
    assert [v["sample_id"] for v in verdicts] == [s.sample_id for s in samples] and bad.count == 1
    assert f"{samples[1].sample_id}: a 300x100 image is not a FailGen grid" in verdicts[1]["error"]
    assert verdicts[0]["label"] in ("Yes", "No") and verdicts[2]["label"] in ("Yes", "No")


def test_geometry_file_round_trip_and_a_model_without_one(tiny_vlm, tmp_path, capsys):
    write_geometry(tmp_path, Geometry(view_size=48))
    assert read_geometry(tmp_path) == Geometry(view_size=48)
    (tmp_path / GEOMETRY_FILE).write_text(json.dumps({"view_size": 48, "views": ["front"], "keyframes": "all",
                                                      "layout": "mosaic"}))
    with pytest.raises(InputError, match="unknown grid layout 'mosaic'"):
        read_geometry(tmp_path)
    (tmp_path / GEOMETRY_FILE).write_text("{")
    with pytest.raises(InputError, match="corrupted geometry file"):
        read_geometry(tmp_path)
    vlm = load_vlm(tiny_vlm, device="cpu")  # built from test grids that are not FailGen's: no geometry
    assert vlm.normalize is None and "no geometry.json" in capsys.readouterr().err
    grid = Image.new("RGB", (300, 100), "gray")
    assert vlm.fit(grid) is grid  # goes in as it is


def test_normalizer_redraws_other_sizes_once_reported(capsys):
    large = Image.open(load_samples(EXAMPLES_128)[0].image)
    norm = GridNormalizer(Geometry(view_size=64))
    out = norm(large)
    assert out.size == Image.open(load_samples(EXAMPLES_64)[0].image).size
    norm(large)
    assert capsys.readouterr().err.count("128-px views are redrawn") == 1


def _as_official(samples, tmp_path, size=None):
    """The samples' grids rewritten in the official format (rows front, wrist, overhead; FailGen's
    official wording), optionally redrawn at another view size."""
    from toolkit.aha.prompt import make_question
    from toolkit.failgen.grid import LEGACY_ROWS, OFFICIAL_ROWS, regrid, reorder_rows

    out = []
    for i, s in enumerate(samples):
        grid = reorder_rows(Image.open(s.image).convert("RGB"), LEGACY_ROWS, OFFICIAL_ROWS)
        grid = regrid(grid, size) if size else grid
        path = tmp_path / f"official_{i}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        grid.save(path)
        out.append(dataclasses.replace(s, image=path, rows=OFFICIAL_ROWS,
                                       question=make_question(s.subtask, OFFICIAL_ROWS)))
    return out


def test_official_format_grids_are_brought_to_the_shipped_models_format(shipped, tmp_path):
    from toolkit.aha.vlm import fit_sample
    from toolkit.failgen.grid import LEGACY_ROWS

    legacy = load_samples(EXAMPLES_64)
    assert shipped.normalize.geometry.views == LEGACY_ROWS and {s.rows for s in legacy} == {LEGACY_ROWS}
    official = _as_official(legacy, tmp_path)
    image, question = fit_sample(shipped, Image.open(official[0].image).convert("RGB"), official[0])
    assert (np.asarray(image) == np.asarray(Image.open(legacy[0].image).convert("RGB"))).all()
    assert question == legacy[0].question  # reworded for the order the model learned
    a = list(detect_local(shipped, legacy, "shipped", max_new_tokens=3))
    b = list(detect_local(shipped, official, "shipped", max_new_tokens=3))
    assert [v["label"] for v in a] == [v["label"] for v in b]
    right = sum(v["label"] == s.label for v, s in zip(b, legacy, strict=True))
    assert right >= 0.8 * len(legacy), right
    # the same grids at 128 px in the official order: rows moved and views redrawn
    big = list(detect_local(shipped, _as_official(legacy, tmp_path / "x", size=128), "shipped", max_new_tokens=3))
    assert sum(x["label"] == y["label"] for x, y in zip(a, big, strict=True)) >= 0.9 * len(a)
    # the control: the official grids read as if their rows were in the model's order
    unmoved = [dataclasses.replace(o, rows=s.rows, question=s.question) for o, s in zip(official, legacy, strict=True)]
    wrong = list(detect_local(shipped, unmoved, "shipped", max_new_tokens=3))
    control = sum(v["label"] == s.label for v, s in zip(wrong, legacy, strict=True))
    assert control <= right - 4, (control, right)  # measured: 9 of 16 vs 16 of 16


def test_geometry_records_the_row_order_and_whether_future_cells_are_kept(tmp_path):
    from toolkit.aha.vlm import VLM
    from toolkit.failgen.grid import LEGACY_ROWS, parse_rows

    geo = Geometry(view_size=64, views=LEGACY_ROWS, keyframes="all")
    write_geometry(tmp_path, geo)
    assert read_geometry(tmp_path) == geo
    (tmp_path / GEOMETRY_FILE).write_text(json.dumps({**geo.to_json(), "views": ["front", "front", "wrist"]}))
    with pytest.raises(InputError, match="field 'views'"):
        read_geometry(tmp_path)
    with pytest.raises(InputError, match="--grid-rows: front,top,wrist is not an order of the views"):
        parse_rows("front,top,wrist")
    grid = Image.open(load_samples(EXAMPLES_64)[0].image)  # a grid with white future columns
    vlm = VLM.__new__(VLM)
    vlm.normalize = GridNormalizer(geo)
    assert vlm.prepare(grid) is grid  # a model that keeps all keyframes sees the white cells
    vlm.normalize = GridNormalizer(Geometry(view_size=64, views=LEGACY_ROWS))
    assert vlm.prepare(grid).size[0] < grid.size[0]  # the shipped model's format trims them
