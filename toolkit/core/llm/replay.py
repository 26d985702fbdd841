"""`replay:FILE` answers requests recorded earlier; `--record FILE` wraps a backend and records.

A recording is JSONL of `llm.exchange` records keyed by a hash of the normalized request.
When the same request was recorded several times (sampling), the k-th identical call
replays the k-th recorded answer, and the last one once they run out, so a pipeline
recorded once replays byte-identically.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.core.errors import InputError, RuntimeFailure
from toolkit.core.llm.base import Backend, Completion, message_text, normalize_request, request_key
from toolkit.core.records import RecordWriter, make_record, read_records

EXCHANGE = "llm.exchange"


def exchange_record(request: dict[str, Any], completion: Completion) -> dict[str, Any]:
    return make_record(EXCHANGE, key=request_key(request), request=request, response=completion.to_json())


def write_exchange(path: str | Path, messages, completion: Completion, *, n: int = 1,
                   temperature: float = 0.0, max_tokens: int = 256, stop=None) -> None:
    """Append one exchange to a replay file (used by scripts that build recordings)."""
    request = normalize_request(messages, n, temperature, max_tokens, stop)
    with RecordWriter(path, append=True) as writer:
        writer.write(exchange_record(request, completion))


@dataclass
class ReplayBackend(Backend):
    path: Path = Path()
    _answers: dict[str, list[Completion]] = field(default_factory=dict)
    _served: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def __post_init__(self) -> None:
        self.name = f"replay:{self.path}"
        answers: dict[str, list[Completion]] = defaultdict(list)
        for record in read_records(self.path, types=[EXCHANGE], required=("key", "response")):
            answers[record["key"]].append(Completion.from_json(record["response"]))
        self._answers = dict(answers)

    def _complete(self, messages, n, temperature, max_tokens, stop) -> Completion:
        request = normalize_request(messages, n, temperature, max_tokens, stop)
        key = request_key(request)
        recorded = self._answers.get(key)
        if not recorded:
            last = message_text(messages[-1]).strip().replace("\n", " ")
            preview = last[:80] + ("..." if len(last) > 80 else "")
            raise RuntimeFailure(
                f"{self.path}: no recorded answer for request {key} (n={n}, temperature={temperature:g}, "
                f"last message: {preview!r}); record it with --record"
            )
        index = min(self._served[key], len(recorded) - 1)
        self._served[key] += 1
        return recorded[index]


@dataclass
class RecordingBackend(Backend):
    """Wraps any backend and appends every exchange to a replay file as it happens."""

    inner: Any = None
    path: Path = Path()

    def __post_init__(self) -> None:
        self.name = f"{self.inner.name} (recording to {self.path})"
        try:
            self._writer = RecordWriter(self.path, append=True)
        except InputError as exc:
            raise InputError(f"--record: {exc}") from None

    def _complete(self, messages, n, temperature, max_tokens, stop) -> Completion:
        completion = self.inner.complete(messages, n=n, temperature=temperature, max_tokens=max_tokens,
                                         stop=stop)
        self._writer.write(exchange_record(normalize_request(messages, n, temperature, max_tokens, stop),
                                           completion))
        return completion

    def _complete_many(self, requests, temperature, max_tokens, stop) -> list[Completion]:
        completions = self.inner.complete_many(requests, temperature=temperature, max_tokens=max_tokens, stop=stop)
        for messages, completion in zip(requests, completions, strict=True):
            self._writer.write(exchange_record(normalize_request(messages, 1, temperature, max_tokens, stop),
                                               completion))
        return completions


@dataclass
class CollectingBackend(Backend):
    """Wraps any backend and keeps every exchange in memory: a worker process hands them back to the
    parent, which appends them to the --record file in job order (one writer, deterministic order)."""

    inner: Any = None
    exchanges: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.name = self.inner.name

    def _complete(self, messages, n, temperature, max_tokens, stop) -> Completion:
        completion = self.inner.complete(messages, n=n, temperature=temperature, max_tokens=max_tokens,
                                         stop=stop)
        self.exchanges.append(exchange_record(normalize_request(messages, n, temperature, max_tokens, stop),
                                              completion))
        return completion
