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


def parse_curriculum(text: str) -> list[tuple[list[int], list[int], int]]:
    """'8:1@2000;8,16:1..2@5000' as [(sizes, depths, until_step), ...], the steps increasing."""
    stages = []
    for part in (p.strip() for p in text.split(";") if p.strip()):
        head, at, until = part.partition("@")
        sizes, colon, depths = head.partition(":")
        if not at or not colon:
            raise InputError(f"--curriculum {part}: expected SIZES:DEPTHS@UNTIL_STEP")
        try:
            end = int(until)
        except ValueError:
            raise InputError(f"--curriculum {part}: the step after @ must be an integer") from None
        if stages and end <= stages[-1][2]:
            raise InputError(f"--curriculum {part}: stage ends must increase ({end} after {stages[-1][2]})")
        stages.append((parse_ints(sizes, "--curriculum"), parse_ints(depths, "--curriculum"), end))
    return stages
