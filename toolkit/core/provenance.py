"""Where a run's answers come from: records made through a deterministic stand-in say so.

A stand-in (a `py:` backend, or a replay of one) makes the pipelines run without a model; what it
produces is a pipeline demo, not a model result. Once a process builds such a backend, or reads a
record that carries `"backend": "stand-in"`, every record it writes carries the same flag, and the
command ends with a one-line notice on stderr, so the label follows the data through pipes, files and evals.
"""

from __future__ import annotations

FIELD = "backend"
STAND_IN = "stand-in"
NOTICE = "pipeline demo, not a model result"

_state: dict[str, str | None] = {"source": None}


def mark_stand_in(source: str) -> None:
    """Note that this process's results come from a stand-in (`source` names the first sign of it)."""
    if _state["source"] is None:
        _state["source"] = source


def announce() -> None:
    """The one-line notice on stderr, when this process's results came from a stand-in (a command that ends
    with an error prints only its error line)."""
    if _state["source"] is None:
        return
    from toolkit.core.console import console

    console.print(f"note: answers come from a deterministic stand-in ({_state['source']}): {NOTICE}",
                  soft_wrap=True, markup=False, highlight=False)


def stand_in_source() -> str | None:
    return _state["source"]


def reset() -> None:
    """Forget the flag (tests that run several commands in one process)."""
    _state["source"] = None


def label(record: dict) -> dict:
    """The record with `"backend": "stand-in"` added when this process's results come from a stand-in."""
    if _state["source"] is None or FIELD in record:
        return record
    return {**record, FIELD: STAND_IN}


def check_input(record: dict, where: str) -> None:
    """Called for every record read: a record made through a stand-in marks this process as well."""
    if record.get(FIELD) == STAND_IN:
        mark_stand_in(where)
