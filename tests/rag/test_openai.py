"""IterDRAG against an OpenAI-compatible server: sub-query documents reach the next request; cost = usage."""

from __future__ import annotations

import json

from tests.support.openai_stub import StubServer, chat_payload
from toolkit.rag import index as ix
from toolkit.rag import world


def test_iterdrag_over_openai_server(reason, tmp_path):
    w = world.generate(1003, per_hop=3, demo_per_hop=1, max_hops=2)
    docs = {d.id: d.record() for d in w.docs}
    ix.save(ix.build(list(docs.values())), tmp_path / "w" / "idx")
    q = w.questions[-1].record()
    assert q["hops"] == 2
    (tmp_path / "q.jsonl").write_text(json.dumps(q) + "\n")
    sub, gold_doc = q["decomposition"][0]["question"], q["decomposition"][0]["doc"]
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
