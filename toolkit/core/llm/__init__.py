"""LLM backends selected by URI: openai:MODEL@URL, hf:PATH, replay:FILE, py:MODULE:FUNCTION."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qsl

from toolkit.core.errors import InputError
from toolkit.core.llm.base import (
    LLM,
    Completion,
    Message,
    Usage,
    complete_all,
    message_text,
    normalize_request,
    request_key,
)
from toolkit.core.llm.replay import CollectingBackend, RecordingBackend, ReplayBackend, write_exchange
from toolkit.core.provenance import mark_stand_in

ENV_VAR = "REASON_LLM"
SCHEMES = ("openai", "hf", "replay", "py")


def from_uri(uri: str | None = None, *, record: str | Path | None = None, seed: int | None = None) -> LLM:
    """Build a backend from `uri` (or $REASON_LLM); wrap it in a recorder when `record` is set.

    `seed` goes to the backend (servers that take a seed, local sampling); replays ignore it."""
    uri = uri or os.environ.get(ENV_VAR)
    if not uri:
        raise InputError(f"no LLM given: pass --llm URI or set {ENV_VAR} (schemes: {', '.join(SCHEMES)})")
    scheme, sep, rest = uri.partition(":")
    if not sep or scheme not in SCHEMES:
        raise InputError(f"--llm {uri}: unknown backend; expected one of {', '.join(s + ':' for s in SCHEMES)}")
    rest, _, query = rest.partition("?")
    options = dict(parse_qsl(query))
    if scheme == "openai":
        from toolkit.core.llm.openai_http import parse_openai_uri

        backend: LLM = parse_openai_uri(rest, **options)
    elif scheme == "hf":
        from toolkit.core.llm.hf_local import HFBackend

        backend = HFBackend(path=Path(rest), options=options)
    elif scheme == "replay":
        backend = ReplayBackend(path=Path(rest))
    else:
        from toolkit.core.llm.function import load_function

        backend = load_function(rest)
        if backend.stand_in:
            mark_stand_in(backend.name)
    backend.seed = seed
    if record:
        backend = RecordingBackend(inner=backend, path=Path(record))
    return backend


__all__ = ["LLM", "Completion", "Message", "Usage", "complete_all", "from_uri", "message_text", "normalize_request",
           "request_key", "write_exchange", "ReplayBackend", "RecordingBackend", "CollectingBackend"]
