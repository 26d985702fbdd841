"""`py:MODULE:FUNCTION` — an in-process Python callable as a backend.

The callable takes (messages, n, temperature, max_tokens, stop) and returns a list of
texts or a Completion. Useful for custom backends, rule-based stand-ins and scripts
that build replay recordings. Its results count as a stand-in's (records carry
"backend": "stand-in") unless the callable has the attribute `stand_in = False`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolkit.core.errors import InputError
from toolkit.core.llm.base import Backend, Completion, apply_stop


@dataclass
class FunctionBackend(Backend):
    fn: Callable[..., Any] | None = None
    # A rule-based stand-in unless the callable says otherwise (`fn.stand_in = False`, e.g. a wrapper of a model).
    stand_in: bool = True

    def _complete(self, messages, n, temperature, max_tokens, stop) -> Completion:
        result = self.fn(messages, n=n, temperature=temperature, max_tokens=max_tokens, stop=stop)
        if isinstance(result, Completion):
            return result
        if isinstance(result, str):
            result = [result] * n
        return Completion([apply_stop(t, stop) for t in result])


def load_function(spec: str) -> FunctionBackend:
    module_name, _, attr = spec.rpartition(":")
    if not module_name or not attr:
        raise InputError(f"py:{spec}: expected py:MODULE:FUNCTION")
    try:
        fn = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise InputError(f"py:{spec}: cannot load ({exc})") from None
    return FunctionBackend(name=f"py:{spec}", fn=fn, stand_in=bool(getattr(fn, "stand_in", True)))
