"""`openai:MODEL@URL` — chat completions over HTTP to any OpenAI-compatible server.

Uses only the standard library. Retries 429/5xx/connection errors with exponential
backoff (bounded), honours Retry-After, and times out a hanging server. An address where
nothing listens fails within a second (BackendUnreachable), and every later request of the
run fails at once with the same message.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from toolkit.core.errors import BackendUnreachable, InputError, RuntimeFailure
from toolkit.core.llm.base import Backend, Completion, apply_stop

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}
# A refused connection or an unknown host is a wrong address or a server not started, not a busy one: a
# couple of quick retries (0.25 s, 0.5 s) cover a server that is just binding its port, then the run ends.
CONNECT_RETRIES = 2
CONNECT_BACKOFF = 0.25
NO_ROUTE = {errno.ECONNREFUSED, errno.ENETUNREACH, errno.EHOSTUNREACH}


def _nothing_there(reason: object) -> bool:
    """Whether a connection failure means nothing can answer at this address (as opposed to a dropped one)."""
    return isinstance(reason, (ConnectionRefusedError, socket.gaierror)) or (
        isinstance(reason, OSError) and reason.errno in NO_ROUTE)


@dataclass
class OpenAIBackend(Backend):
    model: str = ""
    base_url: str = "http://localhost:8000/v1"
    api_key: str | None = None
    timeout: float = 60.0
    max_retries: int = 5
    backoff: float = 1.0
    want_logprobs: bool = False
    # `?top_logprobs=K`: ask for each position's K most likely tokens (exact option probabilities).
    top_logprobs: int = 0
    # set once the address has proved unreachable: later requests (other items, other threads) fail at once
    unreachable: str | None = None

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")
        if not self.base_url.endswith("/v1"):
            self.base_url += "/v1"
        if self.api_key is None:
            self.api_key = os.environ.get("OPENAI_API_KEY")
        self.name = f"openai:{self.model}@{self.base_url}"

    def _complete(self, messages, n, temperature, max_tokens, stop) -> Completion:
        body = {"model": self.model, "messages": messages, "n": n, "temperature": temperature,
                "max_tokens": max_tokens}
        if stop:
            body["stop"] = stop[:4]
        if self.want_logprobs or self.top_logprobs:
            body["logprobs"] = True
        if self.top_logprobs:
            body["top_logprobs"] = self.top_logprobs
        if self.seed is not None:
            body["seed"] = self.seed
        data = self._post("/chat/completions", body)
        try:
            choices = sorted(data["choices"], key=lambda c: c.get("index", 0))
            texts = [apply_stop(c["message"].get("content") or "", stop) for c in choices]
        except (KeyError, TypeError, AttributeError):
            raise RuntimeFailure(f"{self.name}: response has no choices/message content") from None
        logprobs = None
        if all(c.get("logprobs") and c["logprobs"].get("content") for c in choices):
            logprobs = [[(t["token"], float(t["logprob"])) for t in c["logprobs"]["content"]] for c in choices]
        tops = None
        if self.top_logprobs and all(c.get("logprobs") and c["logprobs"].get("content") for c in choices):
            tops = [[{a["token"]: float(a["logprob"]) for a in t.get("top_logprobs") or []}
                     for t in c["logprobs"]["content"]] for c in choices]
        usage = data.get("usage") or {}
        return Completion(texts, logprobs, int(usage.get("prompt_tokens", 0)),
                          int(usage.get("completion_tokens", 0)), top_logprobs=tops)

    def _post(self, path: str, body: dict) -> dict:
        url = self.base_url + path
        if self.unreachable:
            raise BackendUnreachable(self.unreachable)
        payload = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last = ""
        for attempt in range(self.max_retries + 1):
            delay = self.backoff * (2**attempt)
            try:
                req = urllib.request.Request(url, data=payload, headers=headers, method="POST")
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    return json.loads(resp.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode("utf-8", "replace")[:200]
                if exc.code not in RETRY_STATUS:
                    raise RuntimeFailure(f"{url}: HTTP {exc.code}: {detail}") from None
                last = f"HTTP {exc.code}"
                retry_after = exc.headers.get("Retry-After") if exc.headers else None
                if retry_after and retry_after.replace(".", "", 1).isdigit():
                    delay = max(delay, float(retry_after))
            except TimeoutError:
                raise RuntimeFailure(f"{url}: no answer within {self.timeout:g} s (timeout)") from None
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, (TimeoutError, socket.timeout)):
                    raise RuntimeFailure(f"{url}: no answer within {self.timeout:g} s (timeout)") from None
                last = f"connection failed ({exc.reason})"
                if _nothing_there(exc.reason):
                    if attempt >= min(CONNECT_RETRIES, self.max_retries):
                        self.unreachable = (f"{url}: gave up after {attempt + 1} attempts: {last}; "
                                            f"is a server listening at this address?")
                        raise BackendUnreachable(self.unreachable) from None
                    delay = min(delay, CONNECT_BACKOFF * 2**attempt)
            except json.JSONDecodeError:
                raise RuntimeFailure(f"{url}: response is not JSON") from None
            if attempt < self.max_retries:
                time.sleep(delay)
        raise RuntimeFailure(f"{url}: gave up after {self.max_retries + 1} attempts: {last}")


def parse_openai_uri(spec: str, **options) -> OpenAIBackend:
    """`MODEL@URL` (URL defaults to http://localhost:8000/v1); options from the query string."""
    model, _, url = spec.partition("@")
    if not model:
        raise InputError(f"openai:{spec}: expected openai:MODEL@URL")
    kwargs = {}
    for key, cast in (("timeout", float), ("max_retries", int), ("backoff", float), ("top_logprobs", int)):
        if key in options:
            try:
                kwargs[key] = cast(options[key])
            except ValueError:
                raise InputError(f"openai:{spec}: option {key}={options[key]!r} is not a number") from None
    if options.get("logprobs") in ("1", "true"):
        kwargs["want_logprobs"] = True
    return OpenAIBackend(model=model, base_url=url or "http://localhost:8000/v1", **kwargs)
