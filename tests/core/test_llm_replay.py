import pytest

from tests.support.openai_stub import StubServer, chat_payload
from toolkit.core.errors import InputError, RuntimeFailure
from toolkit.core.llm import from_uri, normalize_request, request_key


def test_record_then_replay_identical(tmp_path):
    rec = tmp_path / "rec.jsonl"
    answers = iter(["first", "second", "third"])
    msgs = [[{"role": "user", "content": f"q{i}"}] for i in range(2)]
    with StubServer(lambda body: (200, chat_payload([next(answers)]))) as server:
        live = from_uri(f"openai:stub@{server.url}", record=rec)
        got = [live.complete(m, temperature=0.8).text for m in msgs]
        got.append(live.complete(msgs[0], temperature=0.8).text)  # same request sampled again
    replay = from_uri(f"replay:{rec}")
    again = [replay.complete(m, temperature=0.8).text for m in msgs]
    again.append(replay.complete(msgs[0], temperature=0.8).text)
    assert again == got == ["first", "second", "third"]


def test_miss_names_request_hash(tmp_path):
    rec = tmp_path / "rec.jsonl"
    rec.write_text("")
    replay = from_uri(f"replay:{rec}")
    msgs = [{"role": "user", "content": "never recorded"}]
    key = request_key(normalize_request(msgs, 1, 0.0, 256, None))
    with pytest.raises(RuntimeFailure, match=key) as err:
        replay.complete(msgs)
    assert "never recorded" in str(err.value)


def test_function_backend_and_bad_uris(tmp_path):
    llm = from_uri("py:tests.core.test_llm_replay:echo_last")
    assert llm.complete([{"role": "user", "content": "ping"}], n=2).texts == ["echo: ping", "echo: ping"]
    with pytest.raises(InputError, match="unknown backend"):
        from_uri("gpt4")
    with pytest.raises(InputError, match="no such file"):
        from_uri(f"replay:{tmp_path / 'missing.jsonl'}")


def echo_last(messages, n, temperature, max_tokens, stop):
    return [f"echo: {messages[-1]['content']}"] * n
