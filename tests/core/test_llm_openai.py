import pytest

from tests.support.openai_stub import StubServer, chat_payload
from toolkit.core.errors import RuntimeFailure
from toolkit.core.llm import from_uri


def test_retries_429_then_succeeds():
    calls = {"n": 0}

    def respond(body):
        calls["n"] += 1
        if calls["n"] <= 2:
            return 429, {"error": "slow down"}
        return 200, chat_payload([f"answer {i}" for i in range(body["n"])])

    with StubServer(respond) as server:
        llm = from_uri(f"openai:stub@{server.url}?backoff=0.01")
        out = llm.complete([{"role": "user", "content": "hi"}], n=2, temperature=0.7, max_tokens=5)
    assert out.texts == ["answer 0", "answer 1"]
    assert calls["n"] == 3
    assert server.requests[-1]["n"] == 2 and server.requests[-1]["temperature"] == 0.7
    assert llm.usage.calls == 1 and llm.usage.prompt_tokens == 5


def test_always_500_gives_bounded_retries():
    with StubServer(lambda body: (500, {"error": "boom"})) as server:
        llm = from_uri(f"openai:stub@{server.url}?backoff=0.01&max_retries=3")
        with pytest.raises(RuntimeFailure, match="gave up after 4 attempts: HTTP 500"):
            llm.complete([{"role": "user", "content": "hi"}])
        assert len(server.requests) == 4


def test_hanging_server_times_out():
    with StubServer(lambda body: (200, chat_payload(["late"])), delay=2.0) as server:
        llm = from_uri(f"openai:stub@{server.url}?timeout=0.3&max_retries=0")
        with pytest.raises(RuntimeFailure, match="timeout"):
            llm.complete([{"role": "user", "content": "hi"}])


def test_unreachable_server_is_clear():
    llm = from_uri("openai:stub@http://127.0.0.1:9/v1?backoff=0.01&max_retries=1")
    with pytest.raises(RuntimeFailure, match="gave up after 2 attempts: connection failed"):
        llm.complete([{"role": "user", "content": "hi"}])
    # a refused connection stops after 3 attempts even when 5xx answers would get 6
    llm = from_uri("openai:stub@http://127.0.0.1:9/v1?backoff=0.01&max_retries=5")
    with pytest.raises(RuntimeFailure, match="gave up after 3 attempts: .*is a server listening"):
        llm.complete([{"role": "user", "content": "hi"}])


def test_nothing_listening_ends_the_run_within_a_second():
    """Even with the default backoff (1 s, doubling) a refused connection is given up on in under a second, as
    BackendUnreachable, and every later request of the run fails at once without a new attempt."""
    import socket
    import time

    from toolkit.core.errors import BackendUnreachable
    from toolkit.core.llm.openai_http import _nothing_there

    llm = from_uri("openai:stub@http://127.0.0.1:9/v1")
    start = time.monotonic()
    with pytest.raises(BackendUnreachable, match=r"127\.0\.0\.1:9/v1/chat/completions: gave up after 3 attempts"):
        llm.complete([{"role": "user", "content": "hi"}])
    first = time.monotonic() - start
    assert 0.7 <= first < 1.5  # two quick retries (0.25 s, 0.5 s), not the 1 s + 2 s of a busy server
    start = time.monotonic()
    for _ in range(20):
        with pytest.raises(BackendUnreachable, match="gave up after 3 attempts"):
            llm.complete([{"role": "user", "content": "again"}])
    assert time.monotonic() - start < 0.5
    # an unknown host is the same case; a connection reset mid-answer is not (it keeps the normal retries)
    assert _nothing_there(socket.gaierror(-2, "Name or service not known"))
    assert not _nothing_there(ConnectionResetError(104, "reset"))


def test_stop_is_applied_and_sent():
    with StubServer(lambda body: (200, chat_payload(["A. then B"]))) as server:
        llm = from_uri(f"openai:stub@{server.url}")
        out = llm.complete([{"role": "user", "content": "x"}], stop=["then"])
    assert out.text == "A. "
    assert server.requests[0]["stop"] == ["then"]


def test_non_numeric_uri_option_is_an_input_error():
    from toolkit.core.errors import InputError

    for query, key in (("timeout=abc", "timeout"), ("max_retries=1.5", "max_retries"), ("backoff=x", "backoff")):
        with pytest.raises(InputError, match=f"option {key}="):
            from_uri(f"openai:m@http://127.0.0.1:9/v1?{query}")
