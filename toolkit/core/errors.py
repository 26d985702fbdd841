"""Errors that end a command with a one-line message and a meaningful exit code."""

from __future__ import annotations


class ReasonError(Exception):
    """An expected failure: shown as one line on stderr, no traceback unless --debug."""

    exit_code = 1

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class InputError(ReasonError):
    """Bad input or usage: a file, line or field the user can fix. Exit code 2."""

    exit_code = 2


class RuntimeFailure(ReasonError):
    """The command could not finish (server unreachable, model failed). Exit code 1."""

    exit_code = 1


class BackendUnreachable(RuntimeFailure):
    """Nothing answers at the LLM backend's address (connection refused, unknown host): no later request can
    succeed, so it ends the run at once, also where a failed request is otherwise recorded per item."""


def where(path: object, line: int | None = None, field: str | None = None) -> str:
    """Format a location as 'path:line: field' for error messages."""
    out = str(path)
    if line is not None:
        out += f":{line}"
    if field:
        out += f": field '{field}'"
    return out
