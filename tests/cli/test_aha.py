"""End-to-end runs of `reason aha ...` through the real executable."""

import base64
import io
import json

import pytest
from PIL import Image

from tests.aha.synth import make_dataset
from tests.support.openai_stub import StubServer, chat_payload

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
