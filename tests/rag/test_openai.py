"""IterDRAG against an OpenAI-compatible server: sub-query documents reach the next request; cost = usage."""

from __future__ import annotations

import json

from tests.support.openai_stub import StubServer, chat_payload


def test_iterdrag_over_openai_server(reason, tmp_path):
    out = reason("rag", "world", "--seed", "1003", "--out", str(tmp_path / "w"), "--per-hop", "3",
                 "--demo-per-hop", "1", "--max-hops", "2")
    assert out.returncode == 0, out.stderr
    q = [json.loads(x) for x in (tmp_path / "w" / "test.jsonl").read_text().splitlines()][-1]
    assert q["hops"] == 2
    (tmp_path / "q.jsonl").write_text(json.dumps(q) + "\n")
    sub, gold_doc = q["decomposition"][0]["question"], q["decomposition"][0]["doc"]
    docs = {json.loads(x)["id"]: json.loads(x) for x in (tmp_path / "w" / "corpus.jsonl").read_text().splitlines()}
    replies = [f"follow up : {sub}", "intermediate answer : someone", "so the final answer is : nobody"]
    usage = [111, 222, 333]

    def respond(body):
        i = len(stub.requests) - 1
        return 200, chat_payload([replies[i]], prompt_tokens=usage[i])

    with StubServer(respond) as stub:
        res = reason("rag", "run", "--method", "iterdrag", "-k", "1", "-n", "3", "--questions",
                     str(tmp_path / "q.jsonl"), "--index", str(tmp_path / "w" / "idx"),
                     "--llm", f"openai:stub@{stub.url}")
    assert res.returncode == 0, res.stderr
    rec = json.loads(res.stdout.splitlines()[0])
    assert len(stub.requests) == 3
    gold_line = f"document : {docs[gold_doc]['title']} : {docs[gold_doc]['text']}"
    second = stub.requests[1]["messages"][-1]["content"]
    assert gold_line in second and second.rstrip().endswith(f"follow up : {sub}")
    assert stub.requests[0]["stop"] == ["\n"]
    assert rec["effective_tokens"] == 111 + 222 + 333 and not rec["tokens_estimated"]
    assert rec["prediction"] == "nobody" and rec["calls"] == 3
