"""Paired tests for solve-rate curves."""

from __future__ import annotations


def discordant(a: list[bool], b: list[bool]) -> tuple[int, int]:
    """The discordant pairs of paired outcomes: (true in a only, true in b only)."""
    only_a = sum(1 for x, y in zip(a, b, strict=False) if x and not y)
    only_b = sum(1 for x, y in zip(a, b, strict=False) if y and not x)
    return only_a, only_b


def mcnemar(a: list[bool], b: list[bool]) -> float:
    """Exact two-sided McNemar p-value on paired outcomes (binomial test on the discordant pairs)."""
    from scipy.stats import binomtest

    only_a, only_b = discordant(a, b)
    if only_a + only_b == 0:
        return 1.0
    return float(binomtest(only_b, only_a + only_b, 0.5).pvalue)
