"""The benchmark's instance families, as tiny correct Python projects with bugs injected by text replacement.

Every instance has visible tests in the repository (PASS_TO_PASS), hidden tests that arrive with
`test_patch` (FAIL_TO_PASS), and a problem statement whose ```python block reproduces one symptom.

- `trap-window`, `trap-count`, `trap-steps`: a loop bound or comparison drops one term; at the statement's
  example the dropped term is 1, so raising the accumulator's start (`total = 0` -> `total = 1`) passes the
  reproduction and the visible tests but not the hidden ones (a compensating constant). The proposer ranks
  that edit in its first round, before (or beside) the real fix.
- `valley`: two inverse functions are both wrong and cancel out in the visible round-trip tests; fixing the
  reported one first breaks the round trips, so the first correct edit lowers the score.
- `multi3`, `multi4`, `multi5`: the same off-by-one comparison in 3-5 validators that the statement's
  example checks together: no single edit changes the outcome (a plateau) until all are fixed.
- `simple`: one wrong token; sanity instances.
- `second-cmp`: the wrong token is the second comparison of a line (`lo <= x < hi` for an inclusive range),
  or the fix needs two tokens of one line (`lo < x < hi` -> `lo <= x <= hi`); the first mutation of the line
  (the first comparison's boundary flip) does not fix it.
- `prose`: a one-token bug whose statement has no code block: the symptom is an example written in prose
  ("`f(-5, 0)` should return `0`, but it returns `-5`.").

Each project: {name, family, files (correct), bugs [(path, correct, buggy)], hidden (tests/test_issue.py),
hidden_ids, visible_ids, problem, trap (path, correct-buggy line, trap line) or None}.
"""

from __future__ import annotations

from typing import Any

NAMES = ["alpha", "bravo", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kestrel",
         "lumen", "meadow", "nimbus"]


SPREAD = "\n\ndef spread(xs):\n    return max(xs) - min(xs)\n"
SPREAD_TESTS = ("\n\ndef test_spread():\n    assert spread([3, 9, 4]) == 6\n\n\n"
                "def test_spread_single():\n    assert spread([5]) == 0\n")
SPREAD_IDS = ["tests/test_visible.py::test_spread", "tests/test_visible.py::test_spread_single"]


def _project(name: str, family: str, mod: str, code: str, bugs, hidden: str, hidden_ids: list[str],
             problem: str, visible: str = "", visible_ids: list[str] | None = None,
             trap: tuple[str, str] | None = None) -> dict[str, Any]:
    """Every repository also has an unrelated, correct function (`spread`) with visible tests."""
    vis = f"from pkg.{mod} import spread\n{visible}{SPREAD_TESTS}"
    path = f"pkg/{mod}.py"
    return {"name": name, "family": family,
            "files": {"pkg/__init__.py": "", path: code + SPREAD, "tests/__init__.py": "",
                      "tests/test_visible.py": vis},
            "bugs": [(path, good, bad) for good, bad in bugs], "hidden": hidden, "hidden_ids": hidden_ids,
            "visible_ids": (visible_ids or []) + SPREAD_IDS, "problem": problem,
            "trap": (path, *trap) if trap else None}


def _issue(sentence: str, mod: str, imports: str, asserts: str) -> str:
    return f"{sentence}\n\n```python\nfrom pkg.{mod} import {imports}\n{asserts}\n```\n"


def trap_window(i: int) -> dict[str, Any]:
    f, mod = f"{NAMES[i]}_window", NAMES[i]
    a, b = 2 + i, 5 + 2 * i
    code = (f"def {f}(xs, k):\n    total = 0\n    for i in range(k):\n        total += xs[i]\n    return total\n")
    hidden = (f"from pkg.{mod} import {f}\n\n\ndef test_window_full():\n    assert {f}([4, 5, 6], 3) == 15\n\n\n"
              f"def test_window_one():\n    assert {f}([7, 2], 1) == 7\n")
    problem = _issue(f"`{f}(xs, k)` should add the first k values, but it comes out too small.", mod, f,
                     f"assert {f}([{a}, {b}, 1, 9], 3) == {a + b + 1}")
    return _project(f"trap-window-{i}", "trap-window", mod, code, [("range(k)", "range(k - 1)")], hidden,
                    ["tests/test_issue.py::test_window_full", "tests/test_issue.py::test_window_one"], problem,
                    trap=("    total = 0", "    total = 1"))


def trap_count(i: int) -> dict[str, Any]:
    f, mod = f"{NAMES[i]}_at_least", NAMES[i]
    lim = 3 + 2 * i
    code = (f"def {f}(xs, limit):\n    n = 0\n    for x in xs:\n        if x >= limit:\n            n += 1\n"
            "    return n\n")
    hidden = (f"from pkg.{mod} import {f}\n\n\ndef test_all_equal():\n    assert {f}([{lim}, {lim}], {lim}) == 2\n\n\n"
              f"def test_single():\n    assert {f}([{lim}], {lim}) == 1\n")
    problem = _issue(f"`{f}(xs, limit)` should count the values that reach the limit; it misses one.", mod, f,
                     f"assert {f}([1, {lim}, {lim + 3}], {lim}) == 2")
    return _project(f"trap-count-{i}", "trap-count", mod, code, [("if x >= limit:", "if x > limit:")], hidden,
                    ["tests/test_issue.py::test_all_equal", "tests/test_issue.py::test_single"], problem,
                    trap=("    n = 0", "    n = 1"))


def trap_steps(i: int) -> dict[str, Any]:
    f, mod = f"{NAMES[i]}_climb", NAMES[i]
    a = 3 + i
    code = (f"def {f}(xs):\n    total = 0\n    for i in range(1, len(xs)):\n        total += xs[i] - xs[i - 1]\n"
            "    return total\n")
    hidden = (f"from pkg.{mod} import {f}\n\n\ndef test_climb():\n    assert {f}([1, 4, 9]) == 8\n\n\n"
              f"def test_climb_late():\n    assert {f}([0, 0, 5]) == 5\n")
    problem = _issue(f"`{f}(xs)` should add up the steps between neighbours; the last step is lost.", mod, f,
                     f"assert {f}([0, {a}, {a + 1}]) == {a + 1}")
    return _project(f"trap-steps-{i}", "trap-steps", mod, code,
                    [("range(1, len(xs)):", "range(1, len(xs) - 1):")], hidden,
                    ["tests/test_issue.py::test_climb", "tests/test_issue.py::test_climb_late"], problem,
                    trap=("    total = 0", "    total = 1"))


def valley(i: int) -> dict[str, Any]:
    mod = NAMES[i]
    k = 2 + i if i % 2 == 0 else 2 ** (1 + i // 2)  # powers of two: exact float round trips
    if i % 2 == 0:
        up, down, good_up, bad_up, good_down, bad_down = "lift", "lower", "x + k", "x - k", "x - k", "x + k"
    else:
        up, down, good_up, bad_up, good_down, bad_down = "grow", "shrink", "x * k", "x / k", "x / k", "x * k"
    up, down = f"{mod}_{up}", f"{mod}_{down}"
    code = (f"def {up}(x, k):\n    return {good_up}\n\n\ndef {down}(x, k):\n    return {good_down}\n")
    visible = (f"from pkg.{mod} import {up}, {down}\n\n\n"
               f"def test_round_trip():\n    assert {down}({up}(10, {k}), {k}) == 10\n\n\n"
               f"def test_round_trip_other():\n    assert {down}({up}(7, {k}), {k}) == 7\n")
    expect_up = 5 + k if i % 2 == 0 else 5 * k
    expect_down = 5 - k if i % 2 == 0 else 5 / k
    hidden = (f"from pkg.{mod} import {up}, {down}\n\n\ndef test_up():\n    assert {up}(5, {k}) == {expect_up}\n\n\n"
              f"def test_down():\n    assert {down}(5, {k}) == {expect_down}\n")
    problem = _issue(f"`{up}(x, k)` goes the wrong way.", mod, up, f"assert {up}(5, {k}) == {expect_up}")
    return _project(f"valley-{i}", "valley", mod, code,
                    [(f"def {up}(x, k):\n    return {good_up}", f"def {up}(x, k):\n    return {bad_up}"),
                     (f"def {down}(x, k):\n    return {good_down}", f"def {down}(x, k):\n    return {bad_down}")],
                    hidden, ["tests/test_issue.py::test_up", "tests/test_issue.py::test_down"], problem,
                    visible=visible, visible_ids=["tests/test_visible.py::test_round_trip",
                                                  "tests/test_visible.py::test_round_trip_other"])


def multi(i: int, k: int) -> dict[str, Any]:
    mod = NAMES[i]
    caps = [10 + 3 * j + i for j in range(k)]
    fns = [f"fits_{j}" for j in range(k)]
    code = "\n\n".join(f"def {fn}(x):\n    lo = 0\n    return lo <= x <= {c}\n"
                         for fn, c in zip(fns, caps, strict=True))
    visible = (f"from pkg.{mod} import {', '.join(fns)}\n\n\n" + "def test_inside():\n" +
               "".join(f"    assert {fn}({c - 1})\n" for fn, c in zip(fns, caps, strict=True)))
    hidden = (f"from pkg.{mod} import {', '.join(fns)}\n\n\n" +
              "\n\n".join(f"def test_{fn}():\n    assert {fn}({c})\n    assert not {fn}({c} + 0.5)\n"
                          for fn, c in zip(fns, caps, strict=True)))
    problem = _issue("The `fits_*` checks reject values equal to their cap.", mod, ", ".join(fns),
                     "\n".join(f"assert {fn}({c})" for fn, c in zip(fns, caps, strict=True)))
    bugs = [(f"lo <= x <= {c}", f"lo <= x < {c}") for c in caps]
    return _project(f"multi{k}-{i}", f"multi{k}", mod, code, bugs, hidden, [f"tests/test_issue.py::test_{fn}"
                                                                            for fn in fns], problem,
                    visible=visible, visible_ids=["tests/test_visible.py::test_inside"])


SIMPLE = [
    # (function body with {f}, correct, buggy, repro assert, hidden asserts)
    ("def {f}(a, b):\n    return a + b\n", "a + b", "a - b", "{f}(2, 3) == 5", ["{f}(1, 1) == 2", "{f}(-1, 4) == 3"]),
    ("def {f}(x, lo):\n    if x < lo:\n        return lo\n    return x\n", "if x < lo:", "if x > lo:",
     "{f}(-5, 0) == 0", ["{f}(3, 0) == 3", "{f}(-1, 2) == 2"]),
    ("def {f}(xs):\n    return xs[len(xs) - 1]\n", "len(xs) - 1]", "len(xs) - 2]", "{f}([1, 2, 3]) == 3",
     ["{f}([4, 5, 6]) == 6", "{f}([4, 5]) == 5"]),
    ("def {f}(n):\n    return n % 2 == 0\n", "n % 2 == 0", "n % 2 != 0", "{f}(4)", ["not {f}(3)", "{f}(0)"]),
]


def simple(i: int) -> dict[str, Any]:
    body, good, bad, repro, checks = SIMPLE[i % len(SIMPLE)]
    mod = NAMES[i]
    f = f"{mod}_op"
    hidden = f"from pkg.{mod} import {f}\n\n\n" + "\n\n".join(
        f"def test_case_{j}():\n    assert {c.format(f=f)}\n" for j, c in enumerate([repro] + checks))
    problem = _issue(f"`{f}` gives a wrong result.", mod, f, f"assert {repro.format(f=f)}")
    return _project(f"simple-{i}", "simple", mod, body.format(f=f), [(good, bad)], hidden,
                    [f"tests/test_issue.py::test_case_{j}" for j in range(1 + len(checks))], problem)


SECOND_CMP = [
    # (function body with {f}, correct, buggy, repro assert, visible assert, hidden asserts)
    ("def {f}(x, lo, hi):\n    return lo <= x <= hi\n", "lo <= x <= hi", "lo <= x < hi",
     "{f}(10, 0, 10)", "{f}(5, 0, 10)", ["{f}(3, 3, 3)", "{f}(7, 0, 7)"]),
    ("def {f}(a, b, c):\n    return a < b and b < c\n", "a < b and b < c", "a < b and b <= c",
     "not {f}(1, 2, 2)", "{f}(1, 2, 3)", ["not {f}(0, 5, 5)", "not {f}(-1, 3, 3)"]),
    ("def {f}(xs, i):\n    return 0 <= i < len(xs)\n", "0 <= i < len(xs)", "0 <= i <= len(xs)",
     "not {f}([1, 2], 2)", "{f}([1, 2], 1)", ["not {f}([], 0)", "not {f}([7], 1)"]),
    ("def {f}(x, lo, hi):\n    return lo <= x <= hi\n", "lo <= x <= hi", "lo < x < hi",
     "{f}(0, 0, 10) and {f}(10, 0, 10)", "{f}(5, 0, 10)", ["{f}(2, 2, 2)", "{f}(5, 5, 9)"]),
]


def second_cmp(i: int) -> dict[str, Any]:
    body, good, bad, repro, seen, checks = SECOND_CMP[i % len(SECOND_CMP)]
    mod = NAMES[i]
    f = f"{mod}_check"
    visible = f"from pkg.{mod} import {f}\n\n\ndef test_typical():\n    assert {seen.format(f=f)}\n"
    hidden = f"from pkg.{mod} import {f}\n\n\n" + "\n\n".join(
        f"def test_case_{j}():\n    assert {c.format(f=f)}\n" for j, c in enumerate([repro] + checks))
    problem = _issue(f"`{f}` is wrong at the edge of its range.", mod, f, f"assert {repro.format(f=f)}")
    return _project(f"second-cmp-{i}", "second-cmp", mod, body.format(f=f), [(good, bad)], hidden,
                    [f"tests/test_issue.py::test_case_{j}" for j in range(1 + len(checks))], problem,
                    visible=visible, visible_ids=["tests/test_visible.py::test_typical"])


PROSE = [
    # (function body with {f}, correct, buggy, call, wrong result, right result, hidden asserts)
    ("def {f}(x, lo):\n    if x < lo:\n        return lo\n    return x\n", "if x < lo:", "if x > lo:",
     "{f}(-5, 0)", "-5", "0", ["{f}(3, 0) == 3", "{f}(-1, 2) == 2"]),
    ("def {f}(a, b):\n    return a * b\n", "a * b", "a + b", "{f}(3, 4)", "7", "12",
     ["{f}(2, 5) == 10", "{f}(0, 9) == 0"]),
    ("def {f}(n):\n    return n // 2\n", "n // 2", "n / 2", "{f}(7)", "3.5", "3",
     ["{f}(9) == 4", "{f}(1) == 0"]),
]


def prose(i: int) -> dict[str, Any]:
    body, good, bad, call, wrong, right, checks = PROSE[i % len(PROSE)]
    mod = NAMES[i]
    f = f"{mod}_fn"
    call = call.format(f=f)
    hidden = f"from pkg.{mod} import {f}\n\n\n" + "\n\n".join(
        f"def test_case_{j}():\n    assert {c.format(f=f)}\n" for j, c in enumerate([f"{call} == {right}"] + checks))
    problem = (f"`{f}` in `pkg/{mod}.py` gives a wrong result: `{call}` should return `{right}`, but it returns "
               f"`{wrong}`.\n")
    return _project(f"prose-{i}", "prose", mod, body.format(f=f), [(good, bad)], hidden,
                    [f"tests/test_issue.py::test_case_{j}" for j in range(1 + len(checks))], problem)


def all_projects() -> list[dict[str, Any]]:
    out = []
    out += [trap_window(i) for i in range(8)] + [trap_count(i) for i in range(8)]
    out += [trap_steps(i) for i in range(8)]
    out += [valley(i) for i in range(10)]
    out += [multi(i, k) for k in (3, 4, 5) for i in range(4)]
    out += [simple(i) for i in range(12)]
    out += [second_cmp(i) for i in range(8)] + [prose(i) for i in range(6)]
    return out
