from pathlib import Path

from tests.swe_search.conftest import make_repo
from toolkit.swe_search.localize import context_name, is_test_file, localize
from toolkit.swe_search.mutate import mutations
from toolkit.swe_search.offline import pass_value, unique_context
from toolkit.swe_search.testrun import run_tests


def test_mutation_operators():
    assert mutations("    if x < lo:")[:3] == ["    if x <= lo:", "    if x > lo:", "    if x >= lo:"]
    assert "    if not (x < lo):" in mutations("    if x < lo:")
    assert "    if not ok:" in mutations("    if ok:") and "    if ok:" in mutations("    if not ok:")
    assert "    return f(b, a)" in mutations("    return f(a, b)")
    assert "    for k in range(2, n + 1):" in mutations("    for k in range(2, n):")
    assert "    return s[:n - 1]" in mutations("    return s[:n]")
    assert mutations("    x = 3")[:2] == ["    x = 4", "    x = 2"]
    assert "    ok = a or b" in mutations("    ok = a and b") and "    v = False" in mutations("    v = True")
    assert "    total += a * b" in mutations("    total += a + b")
    assert mutations("# comment") == [] and mutations("   ") == []
    assert len(set(mutations("    return a + b < c"))) == len(mutations("    return a + b < c"))


def test_unique_context_and_value_mapping():
    text = "a\nx = 1\nb\nx = 1\n"
    lines = text.splitlines()
    assert unique_context(text, lines, 3, "x = 2") == ("b\nx = 1\n", "b\nx = 2\n")
    assert unique_context("x\nx\n", ["x", "x"], 0, "y") is None
    assert pass_value({"a": "passed", "b": "failed"}) == 0.0
    assert pass_value({"a": "passed"}) == 100.0 and pass_value({}) == -100.0


def test_localization_ranks_the_buggy_line_first(tmp_path):
    files = {
        "m/__init__.py": "",
        "m/core.py": ("def f(x):\n    y = x + 1\n    return y * 3\n\n\ndef g(x):\n    return f(x) - 1\n\n\n"
                      "def h(x):\n    return x\n"),
        "tests/test_m.py": ("from m.core import f, g, h\n\n\ndef test_f():\n    assert f(1) == 6\n\n\n"
                            "def test_g():\n    assert g(1) == 5\n\n\ndef test_h():\n    assert h(2) == 2\n"),
    }
    files["m/core.py"] = files["m/core.py"].replace("return y * 3", "return y * 4")
    make_repo(tmp_path / "r", files)
    ids = ["tests/test_m.py::test_f", "tests/test_m.py::test_g", "tests/test_m.py::test_h"]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    report = run_tests(tmp_path / "r", ids, coverage_dir=scratch, timeout=60)
    assert report.outcomes == {ids[0]: "failed", ids[1]: "failed", ids[2]: "passed"}
    ranked = localize(report, tmp_path / "r")
    top = {(s.path, s.line) for s in ranked if s.score == ranked[0].score}
    assert ("m/core.py", 3) in top and ("m/core.py", 11) not in {(s.path, s.line) for s in ranked}
    assert all(not is_test_file(s.path) for s in ranked)
    assert context_name("tests/test_x.py::TestA::test_b[1-2]") == "test_x.TestA.test_b"
    assert is_test_file("tests/helpers.py") and is_test_file("pkg/test_a.py") and not is_test_file("pkg/a.py")
    assert Path(report.coverage_file).exists()


def test_every_site_of_a_line_is_reached_early_and_two_token_edits_are_bounded():
    from toolkit.swe_search.mutate import PAIR_CAP, pair_mutations

    line = "    return lo <= x < hi"
    found = mutations(line)
    # the first comparison's boundary flip, then the second's: the fix on the second comparison is 2nd
    assert found[:2] == ["    return lo < x < hi", "    return lo <= x <= hi"]
    assert "    return lo < x <= hi" in found  # both boundaries at once (two tokens)
    assert mutations("    return a < b and b <= c").index("    return a < b and b < c") == 2
    wide = "    return a < b < c < d < e < f < 9"
    assert len(pair_mutations(wide)) == PAIR_CAP
    assert len(mutations(wide)) <= 3 * 6 + 2 + 3 + PAIR_CAP  # bounded: per site, structural, pairs


def test_prose_examples_become_a_reproduction_and_named_functions_are_suspects(tmp_path):
    from toolkit.swe_search.offline import merge_suspects, reproduction_test
    from toolkit.swe_search.statement import mentioned_names, prose_checks, statement_scores

    make_repo(tmp_path / "r", {"pkg/__init__.py": "", "pkg/geo.py": ("def clamp(x, lo):\n    if x > lo:\n"
                                                                      "        return lo\n    return x\n\n\n"
                                                                      "def other(x):\n    return x + 0\n"),
                               "tests/test_geo.py": "def test_nothing():\n    assert True\n"})
    text = "`clamp(-5, 0)` should return `0`, but it returns `-5`. Also `clamp(3, 0) == 3` fails."
    assert prose_checks(text) == ["assert clamp(-5, 0) == 0", "assert clamp(3, 0) == 3"]
    assert reproduction_test(text, tmp_path / "r") == ("def test_reproduction():\n    from pkg.geo import clamp\n"
                                                       "    assert clamp(-5, 0) == 0\n    assert clamp(3, 0) == 3\n")
    assert reproduction_test("`clamp` is wrong.", tmp_path / "r") is None  # nothing to check against
    assert mentioned_names("In `pkg.geo`, `clamp` and other(x) misbehave") >= {"clamp", "geo", "other"}
    scores = statement_scores("`clamp` is wrong below 0.", tmp_path / "r")
    # the body of clamp (lines 2-4), not `other`; a line holding a literal the statement names ranks higher
    assert set(scores) == {("pkg/geo.py", 2), ("pkg/geo.py", 3), ("pkg/geo.py", 4)}
    scores = statement_scores("`other` is off by 0", tmp_path / "r")
    assert scores == {("pkg/geo.py", 8): 0.3 + 0.1}
    from toolkit.swe_search.localize import Suspect

    merged = merge_suspects([Suspect("pkg/geo.py", 3, 0.5), Suspect("pkg/geo.py", 8, 0.7)],
                            {("pkg/geo.py", 3): 0.3})
    assert [(s.line, s.score) for s in merged] == [(3, 0.8), (8, 0.7)]


def test_a_stalled_edit_is_revised_so_three_children_reach_a_two_token_fix():
    """bench__second-cmp-3: `lo < x < hi` must become `lo <= x <= hi`; no single-token edit changes a test, so
    the search sees a plateau. Revising the stalled edit walks the line's mutations (pairs included) under
    the same 3-children limit."""
    from toolkit.swe_search.instances import load_instances
    from toolkit.swe_search.runner import solve
    from toolkit.swe_search.search import SearchConfig

    root = Path(__file__).resolve().parents[2] / "assets" / "swe_search" / "instances.jsonl"
    inst = load_instances(root, only=["bench__second-cmp-3"])[0]
    pred, tree = solve(inst, SearchConfig(iterations=25))
    assert pred["resolved"] and "+    return lo <= x <= hi" in pred["model_patch"]
    whys = [(n["action"] or {}).get("why", "") for n in tree["nodes"]]
    assert any(w.startswith("revise the last edit") for w in whys)
    assert max(len(n["children"]) for n in tree["nodes"]) <= 3
