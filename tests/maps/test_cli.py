import json
import shutil
from pathlib import Path

import pytest

from tests.support.openai_stub import StubServer, chat_payload

pytestmark = pytest.mark.skipif(shutil.which("ngspice") is None, reason="needs `make sysdeps`")
ASSETS = Path(__file__).resolve().parents[2] / "assets" / "maps"


def records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from tests.conftest import run_reason

    out = tmp_path_factory.mktemp("maps") / "c"
    r = run_reason("maps", "generate", "--tier", "small", "--n", "3", "--seed", "7", "--out-dir", str(out))
    assert r.returncode == 0, r.stderr
    return out


def test_generate_writes_circuits_questions_images(data, reason, tmp_path):
    circuits = records((data / "circuits.jsonl").read_text())
    questions = records((data / "questions.jsonl").read_text())
    assert [c["type"] for c in circuits] == ["maps.circuit"] * 3
    assert all((data / c["image"]).is_file() for c in circuits)
    assert len(questions) == 6 and all(q["letter"] in "ABCD" and len(set(q["options"])) == 4 for q in questions)
    again = tmp_path / "again"
    r = reason("maps", "generate", "--tier", "small", "--n", "3", "--seed", "7", "--out-dir", str(again))
    assert r.returncode == 0
    assert (again / "circuits.jsonl").read_text() == (data / "circuits.jsonl").read_text()


def test_gold_netlists_answer_every_question(data, reason):
    sims = reason("maps", "simulate", str(data / "circuits.jsonl"), "--engine", "ngspice")
    assert sims.returncode == 0, sims.stderr
    assert all(s["ok"] for s in records(sims.stdout))
    answers = reason("maps", "answer", "--questions", str(data / "questions.jsonl"), "-", input=sims.stdout)
    assert answers.returncode == 0, answers.stderr
    score = reason("maps", "eval", "-", "--gold", str(data / "questions.jsonl"), input=answers.stdout)
    result = records(score.stdout)[0]
    assert result["numeric_accuracy"] == 1.0 and result["letter_accuracy"] == 1.0


def test_shipped_ppm_reaches_readme_threshold_on_examples(reason):
    threshold = float((ASSETS / "README.md").read_text().split("examples threshold: ")[1].split()[0])
    netlists = reason("maps", "perceive", str(ASSETS / "examples" / "circuits.jsonl"))
    assert netlists.returncode == 0, netlists.stderr
    result = reason("maps", "equiv", "-", "--gold", str(ASSETS / "examples" / "circuits.jsonl"), input=netlists.stdout)
    summary = records(result.stdout)[-1]
    assert summary["type"] == "maps.ppm_summary" and summary["n"] == 20
    assert summary["equivalent"] >= threshold
    reads = records(netlists.stdout)
    assert all(r["reader"] == "grid" for r in reads)  # the default: the better-measured reader
    from toolkit.maps.grid_reader import MIN_CONFIDENCE

    assert all(0.0 <= r["confidence"] <= 1.0 and r["parsed"] == (r["confidence"] >= MIN_CONFIDENCE) for r in reads)
    # the shipped stand-in recording replays the README pipeline with the LLM answerer, labelled as a demo
    sims = reason("maps", "simulate", "-", input=netlists.stdout)
    answers = reason("maps", "answer", "-", "--questions", str(ASSETS / "examples" / "questions.jsonl"),
                     "--answerer", "llm", "--llm", f"replay:{ASSETS / 'replay.jsonl'}", input=sims.stdout)
    assert answers.returncode == 0, answers.stderr
    score = records(reason("maps", "eval", "-", "--gold", str(ASSETS / "examples" / "questions.jsonl"),
                           input=answers.stdout).stdout)[0]
    assert score["backend"] == "stand-in" and score["note"] == "pipeline demo, not a model result"


@pytest.mark.parametrize("card, where", [
    ("Q1 1 0 5", "field 'element'"), ("R1 1 1k", "field 'nodes'"), ("R1 1 0 4.7kk", "field 'value'"),
    (".subckt amp 1 2", "field 'card'"), ("R1 1 0 <Empty>", "<Empty>"),
])
def test_bad_netlists_exit_2(reason, tmp_path, card, where):
    cir = tmp_path / "bad.cir"
    cir.write_text(f".title t\nV1 1 0 5\n{card}\n.end\n")
    r = reason("maps", "simulate", str(cir))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and f"{cir}:3: " in r.stderr or "<Empty>" in r.stderr
    assert where in r.stderr and "Traceback" not in r.stderr


def test_bad_images_models_and_missing_ngspice_exit_2(reason, tmp_path, data):
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not an image")
    r = reason("maps", "perceive", str(junk))
    assert r.returncode == 2 and "junk.png" in r.stderr
    broken = tmp_path / "model"
    shutil.copytree(ASSETS / "ppm-exemplar", broken)
    (broken / "exemplars.npz").write_bytes(b"PK\x03\x04 truncated")
    r = reason("maps", "perceive", str(data / "circuits.jsonl"), "--model", str(broken))
    assert r.returncode == 2 and "exemplars.npz: corrupt" in r.stderr
    r = reason("maps", "simulate", str(data / "circuits.jsonl"), env={"PATH": str(tmp_path)})
    assert r.returncode == 2 and "make sysdeps" in r.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "maps.circuit", "id": "x", "netlist": "R1 1 0 1k\\n"}\n{"type": \n')
    r = reason("maps", "simulate", str(bad))
    assert r.returncode == 2 and "bad.jsonl:2: malformed JSON" in r.stderr
    assert len(records(r.stdout)) == 1  # the record before the bad line is kept


def test_llm_answerer_refines_only_empty_and_drops_results_without_sim(reason, tmp_path):
    netlist = "V1 1 0 10\nR1 1 2 1k\nR2 2 0 {r2}\n.control\nop\nprint v(2,0) ; measurement of U1\n.endc\n"
    rows = [{"type": "maps.netlist", "schema": 1, "id": "a", "netlist": netlist.format(r2="1k")},
            {"type": "maps.netlist", "schema": 1, "id": "b", "netlist": netlist.format(r2="<Empty>")}]
    qs = tmp_path / "q.jsonl"
    qs.write_text("".join(json.dumps({"type": "maps.question", "schema": 1, "id": f"{c}-q0", "circuit": c,
                                      "text": t, "value": 5.0, "options": ["5", "-5", "50", "2"],
                                      "letter": "A"}) + "\n"
                          for c, t in [("a", "What does meter U1 read?"),
                                       ("b", "Given R2 = 1kΩ. What does meter U1 read?")]))
    nets = tmp_path / "n.jsonl"
    nets.write_text("".join(json.dumps(r) + "\n" for r in rows))

    def respond(body):
        text = body["messages"][0]["content"]
        if "```SPICE" in text:
            return 200, chat_payload(["```spice\n" + netlist.format(r2="1k") + "```"])
        return 200, chat_payload(['{"U1": "$5 \\\\mathrm{~V}$"}'] if "Simulation results" in text else ["no idea"])

    for no_sim in (False, True):
        with StubServer(respond) as server:
            args = ["maps", "answer", str(nets), "--questions", str(qs), "--answerer", "llm",
                    "--llm", f"openai:stub@{server.url}"] + (["--no-sim"] if no_sim else [])
            r = reason(*args, env={"OPENAI_API_KEY": "x"})
            assert r.returncode == 0, r.stderr
            prompts = [b["messages"][0]["content"] for b in server.requests]
        refine = [p for p in prompts if "```SPICE" in p]
        assert len(refine) == 1 and "Given R2" in refine[0]
        answers = {a["id"]: a for a in records(r.stdout)}
        if no_sim:
            assert not any("Simulation results" in p for p in prompts)
            assert answers["a-q0"]["reason"] == "unparsed reply" and answers["a-q0"]["value"] is None
        else:
            assert answers["a-q0"]["value"] == pytest.approx(5.0) and answers["b-q0"]["used_sim"]


def test_train_fits_a_reader_that_recalls_its_training_circuits(data, reason, tmp_path):
    model = tmp_path / "ppm"
    r = reason("maps", "train", "--data", str(data), "--out", str(model), "--kind", "exemplar")
    assert r.returncode == 0, r.stderr
    assert records(r.stdout)[0]["circuits"] == 3
    netlists = reason("maps", "perceive", str(data / "circuits.jsonl"), "--model", str(model))
    summary = records(reason("maps", "equiv", "-", "--gold", str(data / "circuits.jsonl"),
                             input=netlists.stdout).stdout)[-1]
    assert summary["equivalent"] == 1.0  # every crop and value line is its own nearest exemplar
    reads = records(netlists.stdout)
    assert all(r["parsed"] and r["confidence"] > 0.5 for r in reads)  # and it is sure of them
    assert summary["claimed"] == 1.0 and summary["equivalent_when_claimed"] == 1.0
    # a blank page is no circuit: whatever the nearest exemplars say, the read is not claimed
    from PIL import Image

    blank = tmp_path / "blank.png"
    Image.new("L", (512, 512), 255).save(blank)
    r = reason("maps", "perceive", str(blank), "--model", str(model))
    read = records(r.stdout)[0]
    assert r.returncode == 0 and read["parsed"] is False and read["confidence"] == 0.0 and read["netlist"]
    solved = reason("maps", "solve", str(data / "circuits.jsonl"), "--questions", str(data / "questions.jsonl"),
                    "--model", str(model))
    assert solved.returncode == 0, solved.stderr
    score = records(reason("maps", "eval", "-", "--gold", str(data / "questions.jsonl"), input=solved.stdout).stdout)[0]
    assert score["numeric_accuracy"] == 1.0


def test_llm_answerer_sends_the_circuit_image_with_the_answer_prompt(reason, tmp_path):
    """As the anchor's step 2: the answer prompt carries the image as an OpenAI-style image part; the refine
    prompt stays text only; a named image that is missing is an error naming the question line."""
    import base64
    import io

    from PIL import Image

    (tmp_path / "images").mkdir()
    Image.new("RGB", (8, 6), (200, 10, 10)).save(tmp_path / "images" / "a.png")
    netlist = "V1 1 0 10\nR1 1 2 1k\nR2 2 0 {r2}\n.control\nop\nprint v(2) ; measurement of U1\n.endc\n"
    nets = tmp_path / "n.jsonl"
    nets.write_text("".join(json.dumps({"type": "maps.netlist", "schema": 1, "id": c, "netlist": netlist.format(r2=v)})
                            + "\n" for c, v in (("a", "<Empty>"), ("b", "1k"))))
    qs = tmp_path / "q.jsonl"
    qs.write_text("".join(json.dumps({"type": "maps.question", "schema": 1, "id": f"{c}-q0", "circuit": c,
                                      "image": "images/a.png", "text": "Given R2 = 1kΩ. What does meter U1 read?",
                                      "value": 5.0}) + "\n" for c in ("a",)))

    def text_of(content):
        return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)

    def respond(body):
        text = text_of(body["messages"][0]["content"])
        if "```SPICE" in text:
            return 200, chat_payload(["```spice\n" + netlist.format(r2="1k") + "```"])
        return 200, chat_payload(['{"U1": 5}'])

    with StubServer(respond) as server:
        r = reason("maps", "answer", str(nets), "--questions", str(qs), "--answerer", "llm", "--no-sim",
                   "--llm", f"openai:stub@{server.url}", env={"OPENAI_API_KEY": "x"})
        assert r.returncode == 0, r.stderr
        contents = [b["messages"][0]["content"] for b in server.requests]
    refine, ask = contents
    assert isinstance(refine, str) and "```SPICE" in refine
    assert [p["type"] for p in ask] == ["text", "image_url"] and "Question:" in ask[0]["text"]
    url = ask[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    sent = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert sent.size == (8, 6) and sent.convert("RGB").getpixel((0, 0)) == (200, 10, 10)
    answer = records(r.stdout)[0]
    assert answer["image_sent"] is True and answer["value"] == pytest.approx(5.0)

    (tmp_path / "images" / "a.png").unlink()
    r = reason("maps", "answer", str(nets), "--questions", str(qs), "--answerer", "llm", "--no-sim",
               "--llm", "openai:stub@http://127.0.0.1:9", env={"OPENAI_API_KEY": "x"})
    assert r.returncode == 2 and f"{qs}:1: field 'image'" in r.stderr and "a.png" in r.stderr


def test_grid_training_runs_in_chunks_that_resume(data, reason, tmp_path):
    pytest.importorskip("torch")
    model = tmp_path / "grid"
    args = ["maps", "train", "--kind", "grid", "--data", str(data), "--out", str(model), "--steps", "6"]
    r = reason(*args, "--resume")
    assert r.returncode == 2 and "no checkpoint to continue from" in r.stderr
    r = reason(*args, "--minutes", "0")  # a chunk cut at once: nothing done yet, but a checkpoint to continue
    assert r.returncode == 0, r.stderr
    assert records(r.stdout)[0]["step"] == 0 and not records(r.stdout)[0]["done"]
    r = reason(*args, "--resume")
    assert r.returncode == 0, r.stderr
    summary = records(r.stdout)[0]
    assert summary["step"] == 6 and summary["done"] and summary["kind"] == "grid"
    r = reason("maps", "train", "--kind", "grid", "--data", str(data), "--out", str(model), "--steps", "9", "--resume")
    assert r.returncode == 2 and "another --steps" in r.stderr
    r = reason("maps", "train", "--kind", "exemplar", "--data", str(data), "--out", str(tmp_path / "x"), "--resume")
    assert r.returncode == 2 and "--resume" in r.stderr
    ckpt = model / "checkpoint.pt"  # a checkpoint cut short by a killed run: one line, the file named
    saved = ckpt.read_bytes()
    ckpt.write_bytes(saved[: len(saved) // 3])
    r = reason(*args, "--resume")
    assert r.returncode == 2 and "checkpoint.pt: corrupted checkpoint" in r.stderr and r.stderr.count("\n") == 1
    ckpt.write_bytes(saved)
    reads = records(reason("maps", "perceive", str(data / "circuits.jsonl"), "--model", str(model)).stdout)
    assert len(reads) == 3 and all(r["reader"] == "grid" and 0.0 <= r["confidence"] <= 1.0 for r in reads)


def test_the_default_reader_does_not_claim_a_blank_page(reason, tmp_path):
    pytest.importorskip("torch")
    from PIL import Image

    blank = tmp_path / "blank.png"
    Image.new("L", (256, 256), 255).save(blank)
    r = reason("maps", "perceive", str(blank))
    read = records(r.stdout)[0]
    assert r.returncode == 0 and read["reader"] == "grid" and read["parsed"] is False and read["netlist"]
