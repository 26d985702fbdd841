"""Small parsers shared by the commands."""

from __future__ import annotations

from toolkit.core.errors import InputError


def parse_ints(text: str, option: str) -> list[int]:
    """'4', '4,8,16' or '1..6' (ascending) as a list of ints."""
    try:
        if ".." in text:
            lo, hi = (int(x) for x in text.split(".."))
            if lo > hi:
                raise InputError(f"{option} {text}: empty range (start above end)")
            return list(range(lo, hi + 1))
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"{option} {text}: expected N, N,M,... or A..B") from None
    if not values:
        raise InputError(f"{option} {text}: no values")
    return values


def check_mode(mode: str) -> None:
    if mode not in ("cot", "direct"):
        raise InputError(f"--mode {mode}: expected cot or direct")
