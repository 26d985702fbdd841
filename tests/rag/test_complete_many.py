"""`complete_many`: the hf backend's left-padded batches answer exactly as one call per request."""

from __future__ import annotations

from toolkit.core.llm import from_uri
from toolkit.core.llm.function import FunctionBackend


def test_hf_batches_match_single_calls(tiny_llama):
    llm = from_uri(f"hf:{tiny_llama}?device=cpu&batch_size=3")
    prompts = ["the cube", "what is the red cube on the table", "pick", "answer the question which arm",
               "two three four five six seven eight nine zero one"]
    requests = [[{"role": "user", "content": p}] for p in prompts]
    single = [llm.complete(r, max_tokens=6) for r in requests]
    calls = llm.usage.calls
    batched = llm.complete_many(requests, max_tokens=6)
    assert [c.text for c in batched] == [c.text for c in single]
    assert [c.prompt_tokens for c in batched] == [c.prompt_tokens for c in single]
    assert llm.usage.calls == calls + len(prompts)


def test_base_backend_loops():
    seen = []
    llm = FunctionBackend(name="f", fn=lambda m, **kw: seen.append(m[-1]["content"]) or [m[-1]["content"].upper()])
    out = llm.complete_many([[{"role": "user", "content": x}] for x in ("a", "b")], stop=["\n"])
    assert [c.text for c in out] == ["A", "B"] and seen == ["a", "b"] and llm.usage.calls == 2
