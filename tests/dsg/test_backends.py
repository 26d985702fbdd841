import json

from tests.support.openai_stub import StubServer, chat_payload


def _answer_for(question: str) -> str:
    """A rule-based server: reads the node the question asks about (never the image)."""
    if "what is the size?" in question or "what is the grid size?" in question:
        return "4." if "maze" in question else "3"
    if "what is the number of piles?" in question:
        return "3"
    if "what is the start?" in question:
        return "R1C1"
    if "what is the goal?" in question:
        return "r2c2"
    if "wall" in question and "what is" in question:
        return "open"
    if "number of objects in pile" in question:
        return "2"
    if "mark in cell" in question:
        return "empty"
    return "yes"


def test_dsg_through_a_chat_server(cli, split, tmp_path):
    seen = []

    def respond(body):
        seen.append(body)
        last = body["messages"][-1]["content"]
        text = last if isinstance(last, str) else "".join(p.get("text", "") for p in last if p["type"] == "text")
        return 200, chat_payload([_answer_for(text)])

    items = tmp_path / "maze.jsonl"
    lines = [ln for ln in (split / "items.jsonl").read_text().splitlines() if '"concept": "maze"' in ln][:1]
    items.write_text("\n".join(lines) + "\n")
    (tmp_path / "images").symlink_to(split / "images")
    cache, rec = tmp_path / "cache.jsonl", tmp_path / "replay.jsonl"
    with StubServer(respond) as server:
        args = ("dsg", "run", "--items", str(items), "--mode", "dsg", "--compose", "vlm",
                "--llm", f"openai:gpt-4o@{server.url}", "--grounding-cache", str(cache))
        code, out, err = cli(*args, "--record", str(rec))
        assert code == 0, err
        n_first = len(seen)
        code2, out2, _ = cli(*args)
    recs = [json.loads(x) for x in out.splitlines()]
    groundings = [r for r in recs if r["type"] == "dsg.grounding"]
    # the DAG order: layout (asked as the size) first, then its children, each carrying the grounded parent
    assert groundings[0]["node"] == "layout" and groundings[0]["answer"] == "4"  # lowercased, period stripped
    assert [g["node"] for g in groundings[1:3]] == ["entry", "exit"] and groundings[1]["answer"] == "r1c1"
    assert all("and the size is 4," in g["question"] for g in groundings[1:])
    assert len(groundings) == 1 + 2 + 12 + 12
    for body in seen[:n_first - 1]:  # grounding calls: system prompt + one user turn with the image as a data URL
        assert body["temperature"] == 0 and body["max_tokens"] == 300
        assert body["messages"][0]["role"] == "system"
        parts = body["messages"][1]["content"]
        assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
    final = seen[n_first - 1]["messages"]  # the composition turn carries the whole grounding history
    assert len(final) == 1 + 2 * len(groundings) + 1
    assert final[-1]["content"].startswith("Imagine that the image represents maze and the size is 4,")
    assert "Note that this scenario may be wrong." in final[-1]["content"]
    assert [m["content"] for m in final if m["role"] == "assistant"] == [g["answer"] for g in groundings]
    # a rerun with the cache asks the server nothing
    assert len(seen) == n_first and code2 == 0
    assert all(r.get("cached") for r in map(json.loads, out2.splitlines()) if r["type"] == "dsg.grounding")
    # the replay file holds no base64, and replays the run without a server
    assert "base64" not in rec.read_text() and "image:sha256:" in rec.read_text()
    code3, out3, err3 = cli("dsg", "run", "--items", str(items), "--mode", "dsg", "--compose", "vlm",
                            "--llm", f"replay:{rec}")
    assert code3 == 0, err3
    assert [json.loads(x)["answer"] for x in out3.splitlines()] == [r["answer"] for r in recs]


def test_program_composition_with_a_local_vlm_and_rerun_from_cache(cli, split, tiny_dsg_vlm, tmp_path):
    cache, pred = tmp_path / "cache.jsonl", tmp_path / "pred.jsonl"
    args = ("dsg", "run", "--items", str(split / "items.jsonl"), "--model", str(tiny_dsg_vlm), "--mode", "dsg",
            "--grounding-cache", str(cache))
    code, _, err = cli(*args, "-o", str(pred))
    assert code == 0, err
    answers = [json.loads(x) for x in pred.read_text().splitlines() if '"dsg.answer"' in x]
    assert len(answers) == 12 and {a["compose"] for a in answers} == {"program"}
    code, out, err = cli(*args)
    assert code == 0 and "0 model call(s)" in err
    assert [json.loads(x) for x in out.splitlines() if '"dsg.answer"' in x] == answers
