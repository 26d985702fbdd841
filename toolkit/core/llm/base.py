"""The LLM backend contract: `complete(messages, n, temperature, max_tokens, stop)`.

Messages are OpenAI-style dicts: {"role": "system"|"user"|"assistant", "content": str or
a list of parts ({"type": "text", "text": ...} / {"type": "image_url", "image_url": {"url":
"data:image/png;base64,..."}})}. A backend returns a Completion with `n` texts and, where
the backend has them, per-token logprobs.
"""

from __future__ import annotations

import hashlib
import json
import time
from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

Message = dict[str, Any]


@dataclass
class Completion:
    texts: list[str]
    # One list per text of (token, logprob) pairs, or None when the backend has none.
    logprobs: list[list[tuple[str, float]]] | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # One list per text of {token: logprob} maps (each position's top alternatives), where asked for.
    top_logprobs: list[list[dict[str, float]]] | None = None

    @property
    def text(self) -> str:
        return self.texts[0]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"texts": self.texts}
        if self.logprobs is not None:
            out["logprobs"] = [[[t, lp] for t, lp in seq] for seq in self.logprobs]
        out["prompt_tokens"] = self.prompt_tokens
        out["completion_tokens"] = self.completion_tokens
        if self.top_logprobs is not None:
            out["top_logprobs"] = self.top_logprobs
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Completion:
        lps = data.get("logprobs")
        return cls(
            texts=list(data["texts"]),
            logprobs=[[(t, float(lp)) for t, lp in seq] for seq in lps] if lps is not None else None,
            prompt_tokens=int(data.get("prompt_tokens", 0)),
            completion_tokens=int(data.get("completion_tokens", 0)),
            top_logprobs=data.get("top_logprobs"),
        )


@dataclass
class Usage:
    """Token and call accounting, reported at the end of a run."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def add(self, completion: Completion, seconds: float) -> None:
        self.calls += 1
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.seconds += seconds

    def summary(self) -> str:
        return (
            f"LLM: {self.calls} call(s), {self.prompt_tokens} prompt + {self.completion_tokens} "
            f"completion tokens, {self.seconds:.1f} s"
        )


class LLM(Protocol):
    name: str
    usage: Usage

    def complete(
        self,
        messages: list[Message],
        n: int = 1,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: list[str] | None = None,
    ) -> Completion: ...


@dataclass
class Backend(ABC):
    """Base class: subclasses implement `_complete`; accounting and argument checks live here."""

    name: str = "backend"
    usage: Usage = field(default_factory=Usage)
    # --seed of the command: sent to servers that take one, seeds local sampling; not part of a replay key.
    seed: int | None = None
    _sampled: Counter = field(default_factory=Counter, repr=False)  # prompt hash -> times sampled

    def sample_seed(self, prompt: str) -> int | None:
        """The seed of one sampled request: from the run's seed, the prompt and how often this backend has
        sampled it, so a prompt draws the same tokens whatever the order, batch, resume or worker process
        it runs in, and a repeated prompt draws afresh. None without a run seed. (Servers get the run's seed
        as it is: `--seed 7` reaches them as 7.)"""
        if self.seed is None:
            return None
        key = hashlib.sha256(prompt.encode()).hexdigest()
        nth = self._sampled[key]
        self._sampled[key] += 1
        digest = hashlib.sha256(f"{self.seed}:{nth}:{prompt}".encode()).digest()
        return int.from_bytes(digest[:8], "big") >> 34  # 30 bits: room for the per-sample offsets of hf: n > 1

    def complete(
        self,
        messages: list[Message],
        n: int = 1,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: list[str] | None = None,
    ) -> Completion:
        if not messages:
            raise ValueError("messages must not be empty")
        if n < 1:
            raise ValueError("n must be >= 1")
        start = time.perf_counter()
        completion = self._complete(messages, n, temperature, max_tokens, list(stop) if stop else None)
        self.usage.add(completion, time.perf_counter() - start)
        return completion

    @abstractmethod
    def _complete(self, messages, n, temperature, max_tokens, stop) -> Completion:
        """Return `n` completions for the messages; arguments are already checked."""

    def complete_many(
        self,
        requests: list[list[Message]],
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: list[str] | None = None,
    ) -> list[Completion]:
        """One completion per request, in order. Loops here; a backend that batches overrides `_complete_many`."""
        for messages in requests:
            if not messages:
                raise ValueError("messages must not be empty")
        if not requests:
            return []
        start = time.perf_counter()
        completions = self._complete_many(requests, temperature, max_tokens, list(stop) if stop else None)
        share = (time.perf_counter() - start) / len(requests)
        for completion in completions:
            self.usage.add(completion, share)
        return completions

    def _complete_many(self, requests, temperature, max_tokens, stop) -> list[Completion]:
        return [self._complete(m, 1, temperature, max_tokens, stop) for m in requests]


def normalize_request(
    messages: list[Message], n: int, temperature: float, max_tokens: int, stop: list[str] | None
) -> dict[str, Any]:
    """The request as a canonical JSON-able dict (backend and model excluded, so replays port). Image data
    URLs are kept as `image:sha256:<16 hex>` of the URL, so keys and recordings hold no base64; text-only
    requests are unchanged (older recordings still load)."""
    return {
        "messages": [{"role": m["role"], "content": _content_key(m["content"])} for m in messages],
        "n": int(n),
        "temperature": round(float(temperature), 6),
        "max_tokens": int(max_tokens),
        "stop": list(stop) if stop else None,
    }


def _content_key(content: Any) -> Any:
    if not isinstance(content, list):
        return content
    out = []
    for part in content:
        url = (part.get("image_url") or {}).get("url") if isinstance(part, dict) else None
        if isinstance(url, str) and url.startswith("data:"):
            digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]
            part = {**part, "image_url": {**part["image_url"], "url": f"image:sha256:{digest}"}}
        out.append(part)
    return out


def request_key(request: dict[str, Any]) -> str:
    blob = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]


def apply_stop(text: str, stop: list[str] | None) -> str:
    """Cut a text at the first stop string (backends that cannot stop natively)."""
    if not stop:
        return text
    cut = min((i for i in (text.find(s) for s in stop) if i >= 0), default=-1)
    return text if cut < 0 else text[:cut]


def message_text(message: Message) -> str:
    """The text parts of a message's content, joined."""
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p.get("type") == "text")


def complete_all(llm: LLM, requests: list[list[Message]], temperature: float = 0.0, max_tokens: int = 256,
                 stop: list[str] | None = None) -> list[Completion]:
    """One completion per request: batched where the backend batches (`complete_many`), else one by one, so
    any object with the protocol's `complete` serves."""
    many = getattr(llm, "complete_many", None)
    if many is not None:
        return many(requests, temperature=temperature, max_tokens=max_tokens, stop=stop)
    return [llm.complete(m, n=1, temperature=temperature, max_tokens=max_tokens, stop=stop) for m in requests]
