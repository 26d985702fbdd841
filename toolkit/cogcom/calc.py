"""CALCULATE: arithmetic through simpleeval with no names, no calls and bounded powers."""

from __future__ import annotations

import operator

from toolkit.core.errors import InputError

MAX_EXPONENT = 64
MAX_BASE = 1e6


def _bounded_pow(a, b):
    if abs(b) > MAX_EXPONENT or abs(a) > MAX_BASE:
        raise InputError(f"power {a}**{b} is too large (exponent <= {MAX_EXPONENT}, base <= {MAX_BASE:g})")
    return operator.pow(a, b)


def calculate(expr: str, where: str = "CALCULATE") -> float:
    """The value of an arithmetic expression; names, calls, attributes and huge powers are input errors."""
    import ast

    from simpleeval import DEFAULT_OPERATORS, SimpleEval

    ops = {**DEFAULT_OPERATORS, ast.Pow: _bounded_pow}
    evaluator = SimpleEval(operators=ops, functions={}, names={})
    text = expr.replace("$", "").replace(",", "").strip()
    try:
        value = evaluator.eval(text)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    except Exception as exc:  # simpleeval raises its own types for names, calls, attributes and syntax
        raise InputError(f"{where}: cannot evaluate {expr!r} ({type(exc).__name__}: {exc})") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{where}: {expr!r} is not a number")
    return float(value)
