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
