"""Requests whose failure is kept in the item's record (`error`) so the run goes on and `--resume` asks again.

The rule every such command follows: an unreachable backend (BackendUnreachable) is never kept per item, it
ends the run at once; a run in which every request failed is an error (exit 1, one line); a run in which some
failed says how many."""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.core.errors import RuntimeFailure


@dataclass
class FailureTally:
    what: str  # e.g. "geomrel ask"
    asked: int = 0
    failed: int = 0
    first_error: str | None = None

    def add(self, error: str | None) -> None:
        self.asked += 1
        if error:
            self.failed += 1
            self.first_error = self.first_error or error

    def summary(self) -> str:
        """The end-of-run line; raises RuntimeFailure when every request failed."""
        if self.asked and self.failed == self.asked:
            raise RuntimeFailure(f"{self.what}: all {self.asked} request(s) failed; first: {self.first_error} "
                                 f"(kept in the records' 'error' field; --resume asks them again)")
        line = f"{self.what}: {self.asked - self.failed} of {self.asked} request(s) answered"
        if self.failed:
            line += (f", {self.failed} failed (kept in the records' 'error' field; --resume asks them again); "
                     f"first: {self.first_error}")
        return line
