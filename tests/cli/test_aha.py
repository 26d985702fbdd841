"""End-to-end runs of `reason aha ...` through the real executable."""

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from tests.aha.synth import make_dataset
from tests.support.openai_stub import StubServer, chat_payload

EXAMPLES_128 = Path(__file__).resolve().parents[2] / "assets" / "aha" / "examples-128" / "samples.jsonl"
SMALL = ["--vision", "clip", "--image-size", "32", "--patch-size", "8", "--vision-hidden", "32",
         "--vision-layers", "1", "--vision-heads", "4", "--text-hidden", "32", "--text-layers", "1"]


def _records(text):
    return [json.loads(x) for x in text.splitlines() if x.strip()]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return make_dataset(tmp_path_factory.mktemp("aha-cli"), tasks=("push",), seeds=range(1))


def test_every_command_has_an_example(reason):
    for cmd in ("tiny", "train", "detect", "eval", "loop"):
        res = reason("aha", cmd, "--help")
        assert res.returncode == 0 and "Example:" in res.stdout, cmd


def test_tiny_train_detect_eval_pipeline(reason, data, tmp_path):
    res = reason("aha", "tiny", "--data", str(data), "--out", str(tmp_path / "tiny"), *SMALL)
    assert res.returncode == 0, res.stderr
    info = _records(res.stdout)[0]
    assert info["type"] == "aha.model" and info["image_tokens"] == 16 and info["params"] < 200_000
    assert info["geometry"] is None  # the test grids are not FailGen's layout: nothing to redraw them to
    res = reason("aha", "train", "--data", str(data), "--model", str(tmp_path / "tiny"), "--out",
                 str(tmp_path / "run"), "--full", "--max-steps", "3", "--batch-size", "4", "--val-frac", "0")
    assert res.returncode == 0, res.stderr
    summary = _records(res.stdout)[-1]
    assert summary["type"] == "aha.train" and summary["steps"] == 3 and summary["mode"] == "full"
    res = reason("aha", "detect", str(data), "--model", str(tmp_path / "run"), "--max-new-tokens", "4",
                 "--out", str(tmp_path / "v.jsonl"))
    assert res.returncode == 0, res.stderr
    verdicts = _records((tmp_path / "v.jsonl").read_text())
    samples = _records(data.read_text())
    assert [v["sample_id"] for v in verdicts] == [s["sample_id"] for s in samples]
    assert all(v["type"] == "aha.verdict" and v["reference"] for v in verdicts)
    res = reason("aha", "eval", "--pred", str(tmp_path / "v.jsonl"), "--no-cosine", "--json",
                 "--llm", "py:tests.aha.judges:judge")
    assert res.returncode == 0, res.stderr
    result = _records(res.stdout)[0]
    assert result["type"] == "aha.eval" and result["overall"]["n"] == len(samples)
    assert set(result["by_mode"]) == {"nominal", "grasp", "slip", "translation_x"}
    assert 0.0 <= result["overall"]["binary"] <= 1.0 and result["overall"]["fuzzy"] is not None
    assert "per mode" in res.stderr


def test_eval_scores_and_rejects_mismatched_ids(reason, data, tmp_path):
    samples = _records(data.read_text())
    verdicts = [{"type": "aha.verdict", "schema": 1, "sample_id": s["sample_id"], "raw": s["answer"],
                 "task": s["task"], "mode": s["mode"]} for s in samples]
    path = tmp_path / "v.jsonl"
    path.write_text("".join(json.dumps(v) + "\n" for v in verdicts))
    # scoring needs the labels only: a gold file moved away from its images still works
    gold = tmp_path / "labels-only" / "gold.jsonl"
    gold.parent.mkdir()
    gold.write_text("".join(json.dumps({k: v for k, v in s.items() if k != "dir"}) + "\n" for s in samples))
    res = reason("aha", "eval", "--pred", str(path), "--gold", str(gold), "--json")
    assert res.returncode == 0, res.stderr
    overall = _records(res.stdout)[0]["overall"]
    assert overall["binary"] == 1.0 and overall["rouge_l"] == 1.0 and overall["cosine"] == pytest.approx(1.0)
    assert "kernels" not in res.stderr and "Loading weights" not in res.stderr  # no library chatter
    path.write_text("".join(json.dumps(v) + "\n" for v in verdicts[1:]))
    res = reason("aha", "eval", "--pred", str(path), "--gold", str(data), "--no-cosine")
    assert res.returncode == 2 and "have no verdict" in res.stderr and samples[0]["sample_id"] in res.stderr
    verdicts[0]["sample_id"] = "nope/0"
    path.write_text("".join(json.dumps(v) + "\n" for v in verdicts))
    res = reason("aha", "eval", "--pred", str(path), "--gold", str(data), "--no-cosine")
    assert res.returncode == 2 and "verdict 1: sample_id 'nope/0' is not in" in res.stderr
    res = reason("aha", "eval", "--pred", str(path), "--no-cosine")
    assert res.returncode == 2 and "field 'reference' missing" in res.stderr
    assert "Traceback" not in res.stderr


def test_detect_errors_are_one_line(reason, data, tiny_llama, tmp_path):
    res = reason("aha", "detect", str(data), "--model", str(tiny_llama))
    assert res.returncode == 2 and "not a vision-language model" in res.stderr
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not an image at all")
    res = reason("aha", "detect", "--image", str(bad), "--subtask", "pick up the cube", "--llm", "openai:x@http://127.0.0.1:9")
    assert res.returncode == 2 and "corrupt or unreadable image" in res.stderr and "Traceback" not in res.stderr


def test_openai_path_sends_the_grid_as_a_data_url(reason, data):
    grid = next(p for p in sorted(data.parent.rglob("grid_*.png")))

    def respond(body):
        parts = body["messages"][0]["content"]
        url = next(p["image_url"]["url"] for p in parts if p["type"] == "image_url")
        assert url.startswith("data:image/png;base64,")
        Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).load()
        return 200, chat_payload(["No, the gripper did not close."])

    with StubServer(respond) as server:
        res = reason("aha", "detect", "--image", str(grid), "--subtask", "pick up the red cube",
                     "--llm", f"openai:gpt-4o@{server.url}")
        assert len(server.requests) == 1
        text = next(p["text"] for p in server.requests[0]["messages"][0]["content"] if p["type"] == "text")
    assert res.returncode == 0, res.stderr
    v = _records(res.stdout)[0]
    assert v["success"] is False and v["explanation"] == "the gripper did not close." and v["label"] == "No"
    assert '"pick up the red cube"' in text and v["model"].startswith("openai:gpt-4o@")


def test_default_pipeline_on_128_px_failgen_grids(reason):
    # `reason failgen --task ... --out fg | reason aha detect - | reason aha eval --pred - --gold fg/samples.jsonl`
    # with every default, on shipped 128-px renders of fresh seeds (FailGen's default camera size)
    det = reason("aha", "detect", "-", input=EXAMPLES_128.read_text(), cwd=EXAMPLES_128.parent)
    assert det.returncode == 0, det.stderr
    assert "128-px views are redrawn at the model's trained 64-px views" in det.stderr
    res = reason("aha", "eval", "--pred", "-", "--gold", str(EXAMPLES_128), "--json", "--no-cosine", input=det.stdout)
    assert res.returncode == 0, res.stderr
    result = _records(res.stdout)[0]
    assert result["overall"]["n"] == 16 and result["overall"]["binary"] >= 0.9, result["overall"]
    assert result["train_scene_overlap"]["samples"] == 0 and "0 of 16 samples show" in res.stderr


def test_loop_refuses_scenes_the_detector_was_trained_on(reason):
    res = reason("aha", "loop", "--task", "stack", "--seed", "98", "--episodes", "4")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "scenes (stack, 100), (stack, 101) (2 of 4) were used to train or validate the detector" in res.stderr
    assert "--allow-train-scenes" in res.stderr


def test_detect_a_grid_of_the_wrong_shape_is_an_error_record(reason, tmp_path):
    recs = _records(EXAMPLES_128.read_text())[:3]
    Image.new("RGB", (300, 100), "gray").save(tmp_path / "odd.png")
    recs[1]["image"] = str(tmp_path / "odd.png")
    for r in recs:
        if r is not recs[1]:
            r["image"] = str(EXAMPLES_128.parent / r["image"])
    data = tmp_path / "s.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in recs))
    out = tmp_path / "v.jsonl"
    res = reason("aha", "detect", str(data), "--out", str(out), "--batch-size", "1", "--max-new-tokens", "2")
    assert res.returncode == 2 and f"{recs[1]['sample_id']}: a 300x100 image is not a FailGen grid" in res.stderr
    written = _records(out.read_text())  # every sample has its record, the odd one an error
    assert [v["sample_id"] for v in written] == [r["sample_id"] for r in recs]
    assert "not a FailGen grid" in written[1]["error"] and all("error" not in written[i] for i in (0, 2))
    res = reason("aha", "detect", str(data), "--skip-bad", "--max-new-tokens", "2")
    assert res.returncode == 0 and "1 sample(s) could not be judged" in res.stderr
    assert len(_records(res.stdout)) == 3
