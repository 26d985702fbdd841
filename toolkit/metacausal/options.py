"""Checks shared by the commands that fit mechanisms: one-line errors for options out of range."""

from __future__ import annotations

from toolkit.core.errors import InputError
from toolkit.metacausal.select import SELECTIONS

ENGINES = ("fast", "reference")
KMAX_LIMIT = 8


def parse_selections(text: str) -> list[str]:
    methods = [m.strip() for m in text.split(",") if m.strip()]
    for m in methods:
        if m not in SELECTIONS:
            raise InputError(f"--select {m!r}: unknown; choose from {', '.join(SELECTIONS)}")
    if not methods:
        raise InputError("--select: empty")
    return methods


def check_fit_options(kmax: int, restarts: str, engine: str, init: str = "pairs") -> str | int:
    """Validated --restarts ('official' or a positive int)."""
    from toolkit.metacausal.inference import INITS

    if init not in INITS:
        raise InputError(f"--init {init!r}: choose {' or '.join(INITS)}")
    if not 1 <= kmax <= KMAX_LIMIT:
        raise InputError(f"--kmax {kmax}: must be within 1..{KMAX_LIMIT}")
    if engine not in ENGINES:
        raise InputError(f"--engine {engine!r}: choose fast or reference")
    if restarts == "official":
        if kmax > 4:
            raise InputError(f"--restarts official: restart counts are known for K' <= 4 only, not --kmax {kmax}; "
                             "give a number")
        return "official"
    try:
        value = int(restarts)
    except ValueError:
        raise InputError(f"--restarts {restarts!r}: expected 'official' or a positive integer") from None
    if value < 1:
        raise InputError(f"--restarts {value}: must be >= 1")
    return value
