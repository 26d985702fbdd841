"""`reason cogcom` end to end: the real CLI on drawn scenes, a stub OpenAI server in the loop, bad inputs."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.support.openai_stub import StubServer, chat_payload


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    from tests.conftest import run_reason

    out = tmp_path_factory.mktemp("cogcom") / "d"
    res = run_reason("cogcom", "scenes", "--n", "5", "--seed", "10000", "--fonts", "heldout", "--out", str(out))
    assert res.returncode == 0, res.stderr
    return out


def _records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_scenes_solve_eval_pipeline(reason, scenes):
    items = _records((scenes / "items.jsonl").read_text())
    assert [i["kind"] for i in items] == ["read", "count", "read", "count", "compute"]
    assert all((scenes / i["image"]).is_file() and i["boxes"] for i in items)
    if shutil.which("tesseract") is None:
        pytest.skip("tesseract is not installed")
    solved = reason("cogcom", "solve", "--items", str(scenes / "items.jsonl"), "--policy", "fixed")
    assert solved.returncode == 0, solved.stderr
    chains = _records(solved.stdout)
    assert [c["steps"][0]["name"] for c in chains] == ["GROUNDING"] * 5
    score = reason("cogcom", "eval", "--pred", "-", "--gold", str(scenes / "items.jsonl"), input=solved.stdout)
    result = _records(score.stdout)[0]
    assert result["n"] == 5 and result["score"] >= 0.8, result


def _image_count(body: dict) -> int:
    return sum(1 for m in body["messages"] if isinstance(m["content"], list)
               for p in m["content"] if p.get("type") == "image_url")


def test_vlm_loop_against_a_stub_server(reason, scenes):
    replies = iter(["GROUNDING(red sign)->b gives the sign; CROP_AND_ZOOMIN([[100,100,400,400]], 2)",
                    "It shows COUNTING(b) signs, so the answer is EXIT."])

    def respond(body):
        return 200, chat_payload([next(replies)])

    with StubServer(respond) as server:
        res = reason("cogcom", "solve", "--items", str(scenes / "items.jsonl"), "--policy", "vlm", "--limit", "1",
                     "--llm", f"openai:stub@{server.url}", "--execute", "images")
        assert res.returncode == 0, res.stderr
        first, second = server.requests
    # the crop comes back as a second image with the runtime prompt; a CROP_AND_ZOOMIN-only runtime ends at a
    # reply whose last call is another manipulation
    assert _image_count(first) == 1 and _image_count(second) == 2
    assert second["messages"][-1]["content"][1]["text"] == "Based on this new image and the reasoning history:"
    chain = _records(res.stdout)[0]
    assert chain["steps"][0]["name"] == "CROP_AND_ZOOMIN" and chain["steps"][0]["result"]["size"] == [614, 462]
    assert chain["turns"][0]["content"][0]["image_url"]["url"].startswith("image:sha256:")
    assert chain["answer"] == "EXIT" and chain["stopped"] == "answer" and len(chain["steps"]) == 1


def test_vlm_errors_reported_back_and_turn_cap(reason, scenes):
    bodies = []

    def respond(body):
        bodies.append(body)
        return 200, chat_payload(["Let me try CROP_AND_ZOOMIN([[900,900,100,100]], 2)"])

    with StubServer(respond) as server:
        res = reason("cogcom", "solve", "--items", str(scenes / "items.jsonl"), "--policy", "vlm", "--limit", "1",
                     "--llm", f"openai:stub@{server.url}", "--max-turns", "10")
    assert res.returncode == 0, res.stderr
    assert len(bodies) == 10
    chain = _records(res.stdout)[0]
    assert chain["stopped"] == "max-turns" and chain["answer"] is None
    assert all("inverted" in s["error"] for s in chain["steps"])
    assert "CROP_AND_ZOOMIN failed" in bodies[1]["messages"][-1]["content"][0]["text"]


def test_malformed_model_calls_are_step_errors_and_the_run_goes_on(reason, scenes):
    """A zoom factor that is not a number and a call that never closes each become that step's error, reported
    back to the model; the loop and the next item go on (no traceback)."""
    script = ["GROUNDING(red sign)->b", "CROP_AND_ZOOMIN(b, 2x)", "Then GROUNDING(red sign->c",
              "So the answer is EXIT."]

    def respond(body):
        return 200, chat_payload([script[sum(m["role"] == "assistant" for m in body["messages"])]])

    with StubServer(respond) as server:
        res = reason("cogcom", "solve", "--items", str(scenes / "items.jsonl"), "--policy", "vlm", "--limit", "2",
                     "--llm", f"openai:stub@{server.url}")
        bodies = server.requests
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
    chains = _records(res.stdout)
    assert len(chains) == 2 and len(bodies) == 8
    for chain in chains:
        errors = [s["error"] for s in chain["steps"]]
        assert errors[0] is None and "zoom factor '2x' is not a number" in errors[1]
        assert "unclosed call 'GROUNDING(red sign->c'" in errors[2] and chain["answer"] == "EXIT"
    assert "CROP_AND_ZOOMIN failed: turn 2: CROP_AND_ZOOMIN: zoom factor" in \
        bodies[2]["messages"][-1]["content"][0]["text"]


def test_planner_stand_in_is_labelled(reason, scenes):
    if shutil.which("tesseract") is None:
        pytest.skip("tesseract is not installed")
    res = reason("cogcom", "solve", "--items", str(scenes / "items.jsonl"), "--policy", "vlm", "--limit", "2",
                 "--llm", "py:toolkit.cogcom.planner:plan")
    chains = _records(res.stdout)
    assert res.returncode == 0 and all(c["backend"] == "stand-in" for c in chains)
    assert chains[1]["answer"] == _records((scenes / "items.jsonl").read_text())[1]["answer"]
    assert "pipeline demo, not a model result" in res.stderr


def test_synth_export_writes_every_zoom_as_the_official_call(reason, scenes, tmp_path):
    """The model-facing conversations of planned zoom paths carry `CROP_AND_ZOOMIN([[...]], 2)`, state the answer
    once, and never name internal images; paths the grammar cannot write (a second crop on the scene while the
    first crop is shown) are reported."""
    if shutil.which("tesseract") is None:
        pytest.skip("tesseract is not installed")
    out = tmp_path / "syn"
    res = reason("cogcom", "synth", "--items", str(scenes / "items.jsonl"), "--llm", "py:toolkit.cogcom.planner:plan",
                 "--out", str(out), "--export", "llava", str(out / "llava.json"))
    assert res.returncode == 0, res.stderr
    records = json.loads((out / "llava.json").read_text())
    assert records and "exported" in res.stderr
    for record in records:
        gpt = [t["value"] for t in record["conversations"] if t["from"] == "gpt"]
        assert all(re.search(r"CROP_AND_ZOOMIN\(\[\[\d{3},\d{3},\d{3},\d{3}\]\], 2\)", g) for g in gpt[:-1])
        assert " ".join(gpt).count("answer is") == 1 and not re.search(r"img_\d+ \(\d+x\d+\)", " ".join(gpt))
        assert sum(t["value"].count("<image>") for t in record["conversations"]) == len(record["images"])


def _in_process(args: list[str], capsys, monkeypatch) -> tuple[int, str, str]:
    """The real `reason` entry point in this process (the many bad-input cases would each pay a start-up)."""
    from cli.main import main

    monkeypatch.setattr("sys.argv", ["reason", *args])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    return code, out, err


def test_bad_inputs_exit_2(scenes, tmp_path, capsys, monkeypatch):
    image = scenes / "images" / "heldout-10000-read.png"
    cases = [
        (["exec", str(image), "GROUNDING(red sign->b"], "error: chain: column 10: '(' is never closed"),
        # an open bracket used to swallow the rest of the chain: one grounding with the whole string as phrase
        (["exec", str(image), "GROUNDING(red sign->b; CROP(b"], "error: chain: column 10: '(' is never closed"),
        (["exec", str(image), "GROUNDING(red sign->b; CROP(b)"], "error: chain: column 10: '(' is never closed"),
        (["exec", str(image), "GROUNDING(red sign))"], "error: chain: column 20: unmatched ')'"),
        (["exec", str(image), "GROUNDING(red sign)->b; CROP_AND_ZOOMIN(b, 2x)->i"],
         "error: chain: column 25: CROP_AND_ZOOMIN: zoom factor '2x' is not a number"),
        (["exec", str(image), "GROUNDING(red sign)->b; FOO(b)"], "unknown manipulation 'FOO'"),
        (["exec", str(image), "CROP_AND_ZOOMIN([[0,0,0,10]], 2)"], "zero area"),
        (["exec", str(image), "CROP_AND_ZOOMIN([[0,0,10,1200]], 2)"], "outside [0,999]"),
        (["exec", str(image), "CALCULATE(__import__('os'))"], "CALCULATE"),
        (["exec", str(image), "CALCULATE(2 ** 1000000)"], "too large"),
        (["exec", str(image), "OCR(t)"], "'t' is used before it is assigned"),
        (["solve", "--items", str(scenes / "items.jsonl"), "--budget", "16"], "--budget 16"),
        (["solve", "--items", str(scenes / "items.jsonl"), "--max-turns", "0"], "--max-turns 0"),
    ]
    corrupt = tmp_path / "corrupt.png"
    corrupt.write_bytes(b"not a png")
    cases.append((["exec", str(corrupt), "OCR(img_0)"], "corrupt"))
    no_question = tmp_path / "items.jsonl"
    no_question.write_text(json.dumps({"id": "a", "image": str(image), "answer": "x"}) + "\n")
    cases.append((["solve", "--items", str(no_question)], "items.jsonl:1: field 'question'"))
    com = tmp_path / "com.jsonl"
    com.write_text(json.dumps({"question": "q", "answer": "a"}) + "\n")
    cases.append((["import-com", str(com)], "com.jsonl:1: field 'final_com'"))
    for args, message in cases:
        code, out, err = _in_process(["cogcom", *args], capsys, monkeypatch)
        assert code == 2, (args, err)
        assert message in err and len(err.strip().splitlines()) == 1, (args, err)
        if "never closed" in message or "unmatched" in message:
            assert out == "", (args, out)  # rejected before any step ran


def test_exec_keeps_steps_before_a_fault(reason, scenes, tmp_path):
    image = scenes / "images" / "heldout-10000-read.png"
    res = reason("cogcom", "exec", str(image), "CALCULATE(3.5+1.25)->c; LINE([[100,100;900,900]])->l; OCR(q)->t",
                 "--images", str(tmp_path))
    assert res.returncode == 2
    steps = _records(res.stdout)
    assert [s["result"] for s in steps][0] == 4.75 and (tmp_path / "img_1.png").is_file()


def test_solve_resume_skips_answered_items(reason, scenes, tmp_path):
    asked = []

    def respond(body):
        asked.append(body)
        return 200, chat_payload([f"So the answer is A{len(asked)}."])

    out = tmp_path / "chains.jsonl"
    with StubServer(respond) as server:
        common = ["cogcom", "solve", "--items", str(scenes / "items.jsonl"), "--policy", "vlm",
                  "--llm", f"openai:stub@{server.url}", "--out", str(out)]
        assert reason(*common, "--limit", "2").returncode == 0
        res = reason(*common, "--resume")
    assert res.returncode == 0, res.stderr
    chains = _records(out.read_text())
    assert len(asked) == 5 and [c["answer"] for c in chains] == ["A1", "A2", "A3", "A4", "A5"]


def test_tiny_train_solve_with_the_model(reason, scenes, tmp_path, capsys, monkeypatch):
    """tiny -> synth -> train -> solve --model -> eval: the trained folder loads as any user's model and
    its chain's last crop is scored by IoU (in this process: the model commands share one torch import)."""
    if shutil.which("tesseract") is None:
        pytest.skip("tesseract is not installed")

    def run(*args: str) -> list[dict]:
        code, out, err = _in_process(["cogcom", *args], capsys, monkeypatch)
        assert code == 0, err
        return _records(out)

    reads = [line for line in (scenes / "items.jsonl").read_text().splitlines() if '"kind": "read"' in line]
    (scenes / "read.jsonl").write_text("\n".join(reads) + "\n")
    items = str(scenes / "read.jsonl")
    built = run("tiny", "--items", items, "--out", str(tmp_path / "tiny"), "--image-size", "32", "--patch-size",
                "16", "--vision-hidden", "16", "--vision-layers", "1", "--text-hidden", "32", "--text-layers", "1")
    assert built[0]["image_tokens"] == 4
    run("synth", "--items", items, "--llm", "py:toolkit.cogcom.planner:plan", "--out", str(tmp_path / "syn"))
    summary = run("train", "--items", items, "--trees", str(tmp_path / "syn" / "trees.jsonl"), "--model",
                  str(tmp_path / "tiny"), "--out", str(tmp_path / "model"), "--epochs", "1", "--batch-size", "4")[-1]
    # 2 read items: each taught as it should go (2 or 4 replies) and its first reply once more on the mirrored
    # scene (1); on a 2 x 2 token grid the coarse window is the whole scene, so there is no moved copy
    assert summary["type"] == "cogcom.train" and summary["train_conversations"] == 4
    assert summary["train_examples"] in range(6, 11) and (tmp_path / "model" / "model.safetensors").is_file()
    solved = run("solve", "--items", items, "--policy", "vlm", "--model", str(tmp_path / "model"), "--limit", "1",
                 "--max-turns", "1", "--out", str(tmp_path / "chains.jsonl"))
    chain = _records((tmp_path / "chains.jsonl").read_text())[0]
    assert not solved and chain["policy"] == "vlm" and sum(t["role"] == "assistant" for t in chain["turns"]) == 1
    score = run("eval", "--pred", str(tmp_path / "chains.jsonl"), "--gold", items)[0]
    assert score["crop_iou"]["read"]["n"] == 1 and 0.0 <= score["crop_iou"]["read"]["mean"] <= 1.0
    # resumable chunks: a chunk stops early without shrinking the schedule, and --resume runs the next one
    chunk = ["train", "--items", items, "--trees", str(tmp_path / "syn" / "trees.jsonl"), "--model",
             str(tmp_path / "tiny"), "--out", str(tmp_path / "chunked"), "--epochs", "3", "--batch-size", "4",
             "--chunk-minutes", "0"]
    first = run(*chunk)[-1]
    second = run(*chunk, "--resume")[-1]
    assert first["steps"] == 1 and second["steps"] == 2
    assert first["scheduled_steps"] == second["scheduled_steps"] == summary["scheduled_steps"] * 3 > 2
