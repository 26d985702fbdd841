"""Generation runs: contract records, images, LLaVA export, GIF, determinism across workers, resume."""

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from toolkit.core.errors import InputError
from toolkit.core.records import load_records
from toolkit.failgen import runner
from toolkit.failgen.export import export
from toolkit.failgen.grid import GAP, is_white
from toolkit.failgen.modes import MODES

SIZE = 24
EPISODE_FIELDS = {"episode_id": str, "task": str, "seed": int, "mode": str, "success": bool, "subtasks": list,
                  "keyframes": int, "object_poses": dict, "frames": list, "dir": str}
SAMPLE_FIELDS = {"sample_id": str, "episode_id": str, "task": str, "mode": str, "seed": int, "subtask_index": int,
                 "subtask": str, "image": str, "question": str, "answer": str, "label": str, "explanation": str,
                 "dir": str}


def jobs_for(out: Path, gif: bool = False, modes=("grasp", "slip")):
    opts = runner.Options(image_size=SIZE, gif=gif)
    return runner.plan_jobs(["stack"], {"stack": list(modes)}, 0, 1, out, str(out), opts)


def generate(out: Path, workers: int = 1, gif: bool = False, resume: bool = False, jobs=None):
    runner.prepare_out(out, resume=resume, force=False)
    return runner.run(jobs or jobs_for(out, gif), out, resume=resume, workers=workers)


def files_of(out: Path) -> dict[str, bytes]:
    data = {}
    for path in sorted(out.rglob("*")):
        if path.is_file():
            blob = path.read_bytes()
            if path.suffix == ".jsonl":
                blob = blob.replace(str(out).encode(), b"DIR")
            data[path.relative_to(out).as_posix()] = blob
    return data


@pytest.fixture(scope="module")
def run_a(tmp_path_factory):
    out = tmp_path_factory.mktemp("fg") / "a"
    summary = generate(out)
    return out, summary


def test_records_follow_the_contract(run_a):
    out, summary = run_a
    episodes = load_records(out / "episodes.jsonl", types=["failgen.episode"])
    samples = load_records(out / "samples.jsonl", types=["aha.sample"])
    assert [e["mode"] for e in episodes] == ["nominal", "grasp", "slip"]
    for e in episodes:
        for field, kind in EPISODE_FIELDS.items():
            assert isinstance(e[field], kind), field
        assert e["schema"] == 1 and e["episode_id"] == f"stack-s0-{e['mode']}" and e["dir"] == str(out)
        assert e["success"] is (e["mode"] == "nominal")
        assert set(e["object_poses"]) == {"initial", "final"}
        assert all(len(v) == 7 for v in e["object_poses"]["initial"].values())
        assert len(e["frames"]) == 3 * e["keyframes"]
        assert all((out / f).exists() for f in e["frames"])
        if e["mode"] != "nominal":
            assert e["mode"] in MODES and isinstance(e["failed_keyframe"], int)
    for s in samples:
        for field, kind in SAMPLE_FIELDS.items():
            assert isinstance(s[field], kind), field
        assert s["sample_id"] == f"{s['episode_id']}/{s['subtask_index']}"
        assert s["label"] in ("Yes", "No") and s["answer"].split(",")[0] == s["label"]
        assert s["subtask"] in s["question"]
    by_ep = {}
    for s in samples:
        by_ep.setdefault(s["episode_id"], []).append(s["label"])
    assert by_ep == {"stack-s0-nominal": ["Yes", "Yes"], "stack-s0-grasp": ["No"], "stack-s0-slip": ["Yes", "No"]}
    assert len(summary.results) == 3 and all(r.kept for r in summary.results)


def test_grid_images_have_views_by_keyframes_and_white_future(run_a):
    out, _ = run_a
    nominal = load_records(out / "episodes.jsonl")[0]
    cols = nominal["keyframes"]
    first = load_records(out / "samples.jsonl")[0]
    img = np.asarray(Image.open(Path(first["dir"]) / first["image"]).convert("RGB"))
    assert img.shape == (3 * SIZE + 4 * GAP, cols * SIZE + (cols + 1) * GAP, 3)
    shown = first["keyframes_shown"]
    assert shown == 1 + 3
    for k in range(cols):
        x = GAP + k * (SIZE + GAP)
        for r in range(3):
            y = GAP + r * (SIZE + GAP)
            assert is_white(img[y:y + SIZE, x:x + SIZE]) == (k >= shown)


def test_llava_export_parses(run_a, tmp_path):
    out, _ = run_a
    target = tmp_path / "sub" / "llava.json"
    n = export(out / "samples.jsonl", "llava", target)
    items = json.loads(target.read_text())
    assert n == len(items) == 5
    for item in items:
        assert set(item) == {"id", "image", "conversations"}
        assert (target.parent / item["image"]).exists()
        human, gpt = item["conversations"]
        assert human["from"] == "human" and human["value"].startswith("<image>\n")
        assert gpt["from"] == "gpt" and gpt["value"].split(",")[0] in ("Yes", "No")
    with pytest.raises(InputError, match="unknown format"):
        export(out / "samples.jsonl", "coco", target)


def test_two_workers_give_byte_identical_files(run_a, tmp_path):
    out_a, _ = run_a
    out_b = tmp_path / "b"
    generate(out_b, workers=2)
    assert files_of(out_a) == files_of(out_b)


def test_resume_after_interruption_matches_uninterrupted(run_a, tmp_path):
    out_a, _ = run_a
    out_c = tmp_path / "c"
    jobs = jobs_for(out_c)
    generate(out_c, jobs=jobs[:2])
    with (out_c / "samples.jsonl").open("a") as fh:      # a sample written, its episode not: interrupted
        fh.write('{"type": "aha.sample", "schema": 1, "episode_id": "stack-s0-slip", "sample_id": "x')
    with pytest.raises(InputError, match="not empty"):
        runner.prepare_out(out_c, resume=False, force=False)
    summary = generate(out_c, resume=True, jobs=jobs)
    assert summary.skipped_done == 2
    assert files_of(out_a) == files_of(out_c)


def test_bad_out_dirs(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError, match="cannot write|not a directory"):
        runner.prepare_out(blocker / "sub", resume=False, force=False)
    with pytest.raises(InputError, match="not a directory"):
        runner.prepare_out(blocker, resume=False, force=False)


def test_mode_and_task_resolution():
    assert runner.resolve_tasks("all")[0] == "stack" and len(runner.resolve_tasks("all")) == 8
    with pytest.raises(InputError, match="known tasks"):
        runner.resolve_tasks("stack,juggle")
    with pytest.raises(InputError, match="does not apply"):
        runner.resolve_modes("grasp", ["push"])
    with pytest.raises(InputError, match="known modes"):
        runner.resolve_modes("grasp,sneeze", ["stack"])
    both = runner.resolve_modes("grasp", ["push", "stack"])
    assert both == {"push": [], "stack": ["grasp"]}


def test_force_removes_only_episode_folders(tmp_path):
    out = tmp_path / "o"
    (out / "stack-s0-grasp").mkdir(parents=True)
    (out / "my-s1-notes").mkdir()
    (out / "episodes.jsonl").write_text("{}\n")
    runner.prepare_out(out, resume=False, force=True)
    assert sorted(p.name for p in out.iterdir()) == ["my-s1-notes"]


def test_gif_is_an_animation_of_the_whole_episode(tmp_path):
    out = tmp_path / "g"
    jobs = runner.plan_jobs(["push"], {"push": []}, 0, 1, out, str(out), runner.Options(image_size=16, gif=True))
    generate(out, jobs=jobs)
    record = load_records(out / "episodes.jsonl")[0]
    gif = Image.open(out / record["gif"])
    assert gif.n_frames > 2 * record["keyframes"] and gif.size == (16, 16)


def _row_frames(out: Path, sample: dict) -> list[str]:
    """Which keyframe-0 camera image each grid row shows (compared below the number tag)."""
    folder = Path(sample["dir"]) / sample["episode_id"]
    grid = np.asarray(Image.open(Path(sample["dir"]) / sample["image"]).convert("RGB")).astype(int)
    views = {v: np.asarray(Image.open(folder / f"kf00_{v}.png").convert("RGB")).astype(int)
             for v in ("front", "overhead", "wrist")}
    found = []
    for r in range(3):
        tile = grid[GAP + r * (SIZE + GAP):GAP + r * (SIZE + GAP) + SIZE, GAP:GAP + SIZE]
        found.append(min(views, key=lambda v: np.abs(tile[12:] - views[v][12:]).mean()))
    return found


def test_default_grid_is_the_official_format_and_the_earlier_one_is_an_option(run_a, tmp_path):
    from toolkit.failgen.grid import LEGACY_ROWS, OFFICIAL_ROWS

    out, _ = run_a
    first = load_records(out / "samples.jsonl")[0]
    assert first["grid_rows"] == list(OFFICIAL_ROWS) == _row_frames(out, first) and first["future"] == "white"
    assert "the middle row is the wrist view, and the bottom is the overhead view" in first["question"]
    assert "white cells are future sub-tasks" in first["question"]
    legacy = tmp_path / "legacy"
    opts = runner.Options(image_size=SIZE, grid_rows=LEGACY_ROWS, future="trim")
    generate(legacy, jobs=runner.plan_jobs(["stack"], {"stack": []}, 0, 1, legacy, str(legacy), opts))
    old = load_records(legacy / "samples.jsonl")[0]
    assert old["grid_rows"] == list(LEGACY_ROWS) == _row_frames(legacy, old) and old["future"] == "trim"
    assert "from the front, overhead and wrist cameras (rows)" in old["question"]
    width = Image.open(Path(old["dir"]) / old["image"]).size[0]
    assert width == old["keyframes_shown"] * (SIZE + GAP) + GAP  # future columns trimmed off
