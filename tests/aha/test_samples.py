import json
import shutil

import pytest

from toolkit.aha.samples import load_samples, sample_from_image, split_by_episode
from toolkit.aha.vlm import load_image
from toolkit.core.errors import InputError


def test_samples_resolve_images_from_dir_or_the_jsonl_folder(synth_data, tmp_path):
    samples = load_samples(synth_data)
    assert len({s.episode_id for s in samples}) == 2 * 2 * 4
    first = samples[0]
    assert first.image.is_file() and first.sample_id == "push-s0-nominal/0" and first.label == "Yes"
    failed = [s for s in samples if s.label == "No"]
    assert failed and all(s.answer.startswith("No, ") and s.explanation for s in failed)
    # records whose "dir" no longer exists: images are found relative to the JSONL file
    moved = tmp_path / "moved"
    shutil.copytree(synth_data.parent, moved)
    lines = [json.loads(x) for x in (moved / "samples.jsonl").read_text().splitlines()]
    for rec in lines:
        rec["dir"] = "/nonexistent/place"
    (moved / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    again = load_samples(moved / "samples.jsonl")
    assert again[0].image == moved / "push-s0-nominal" / "grid_0.png"


def test_llava_json_and_errors(synth_data, tmp_path):
    samples = load_samples(synth_data)
    items = [{"id": s.sample_id, "image": str(s.image.relative_to(synth_data.parent)),
              "conversations": [{"from": "human", "value": "<image>\n" + s.question},
                                {"from": "gpt", "value": s.answer}]} for s in samples[:3]]
    path = synth_data.parent / "llava.json"
    path.write_text(json.dumps(items))
    got = load_samples(path)
    assert [s.sample_id for s in got] == [s.sample_id for s in samples[:3]]
    assert got[0].question == samples[0].question and got[0].episode_id == "push-s0-nominal"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"type": "aha.sample", "sample_id": "x/0", "image": "nope.png", "question": "q",
                               "answer": "Yes"}) + "\n")
    with pytest.raises(InputError, match="record x/0: field 'image': no such file"):
        load_samples(bad)
    bad.write_text(json.dumps({"type": "aha.sample", "sample_id": "x/0", "question": "q", "answer": "Yes"}) + "\n")
    with pytest.raises(InputError, match="missing field 'image'"):
        load_samples(bad)
    with pytest.raises(InputError, match="no such file"):
        sample_from_image(tmp_path / "none.png", "pick")


def test_split_never_leaks_a_scene_and_holds_out_tasks(synth_data):
    samples = load_samples(synth_data)
    train, val, held = split_by_episode(samples, 0.3, seed=1, holdout_tasks={"lift"})
    assert {s.task for s in held} == {"lift"} and "lift" not in {s.task for s in train + val}
    assert not {s.episode_id for s in train} & {s.episode_id for s in val}
    # every failure mode of a (task, seed) replays one scene: all of them sit on one side
    assert not {(s.task, s.seed) for s in train} & {(s.task, s.seed) for s in val}
    assert len({s.mode for s in val}) == 4
    assert val and len(train) + len(val) + len(held) == len(samples)
    assert split_by_episode(samples, 0.3, seed=1, holdout_tasks={"lift"})[1] == val


def test_corrupt_image_is_a_one_line_error(tmp_path):
    p = tmp_path / "grid.png"
    p.write_bytes(b"\x89PNG\r\n\x1a\nthis is not a png")
    with pytest.raises(InputError, match="grid.png: corrupt or unreadable image"):
        load_image(p, where="s/0")
