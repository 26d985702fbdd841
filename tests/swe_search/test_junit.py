"""Test outcomes from JUnit XML for any test command; `python` / `pytest` run in the repository's interpreter."""

import sys

import pytest

from tests.swe_search.conftest import make_repo
from toolkit.swe_search.instances import Instance
from toolkit.swe_search.runner import config_from, solve
from toolkit.swe_search.search import InstanceError
from toolkit.swe_search.testrun import build_test_argv, junit_key, match_outcomes, parse_junit, run_tests

TESTS = ["tests/test_ops.py::test_add", "tests/test_ops.py::test_double"]
WANT = {TESTS[0]: "failed", TESTS[1]: "passed"}
CHECKS = """import sys
from xml.sax.saxutils import quoteattr

cases = {"alpha": 1 + 1 == 2, "beta": 2 + 2 == 5}
rows = "".join(f'<testcase classname="checks" name={quoteattr(k)}>' + ("" if ok else '<failure message="no"/>')
               + "</testcase>" for k, ok in cases.items())
open(sys.argv[1], "w").write(f"<testsuites><testsuite>{rows}</testsuite></testsuites>")
print("done, no summary lines")
"""


@pytest.mark.parametrize("cmd", ["python -m pytest -q", "pytest -q -p no:cacheprovider",
                                 "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python3 -m pytest -q"])
def test_outcomes_without_summary_lines(user_repo, cmd):
    root, _ = user_repo
    log = []
    report = run_tests(root, TESTS, test_cmd=cmd, timeout=60, log=log)
    assert report.outcomes == WANT
    assert log[0].startswith(f"{sys.executable} -m pytest") and "--junitxml={junitxml}" in log[0]


def test_custom_command_writes_its_own_report(tmp_path):
    root = tmp_path / "r"
    make_repo(root, {"run_checks.py": CHECKS})
    report = run_tests(root, ["checks::alpha", "checks::beta", "checks::gamma"],
                       test_cmd="python run_checks.py {junitxml}", timeout=60)
    assert report.outcomes == {"checks::alpha": "passed", "checks::beta": "failed", "checks::gamma": "missing"}
    argv = build_test_argv("pytest -x", ["t"], python="/env/bin/python")
    assert argv[:4] == ["/env/bin/python", "-m", "pytest", "-x"]


def test_junit_keys_files_and_errors(tmp_path):
    xml = tmp_path / "r.xml"
    xml.write_text('<testsuite><testcase classname="tests.test_a.TestX" name="test_b[1]"/>'
                   '<testcase classname="tests.test_a" name="test_c"><error message="boom"/></testcase>'
                   '<testcase classname="tests.test_a" name="test_d"><skipped/></testcase></testsuite>')
    found = parse_junit(xml)
    assert junit_key("tests/test_a.py::TestX::test_b[1]") == "tests.test_a.TestX.test_b[1]"
    assert match_outcomes(found, ["tests/test_a.py::TestX::test_b[1]", "tests/test_a.py::test_c"]) == {
        "tests/test_a.py::TestX::test_b[1]": "passed", "tests/test_a.py::test_c": "failed"}
    whole = match_outcomes(found, ["tests/test_a.py"])  # a file id stands for each of its tests
    assert whole == {"tests.test_a.TestX.test_b[1]": "passed", "tests.test_a.test_c": "failed",
                     "tests.test_a.test_d": "skipped"}
    xml.write_text("<not xml")
    assert parse_junit(xml) == {}


def test_root_run_without_outcomes_is_a_one_line_error(user_repo):
    root, commit = user_repo
    inst = Instance("quiet-1", root, commit, "add subtracts", [TESTS[0]], [TESTS[1]],
                    test_cmd="python -c \"print('collected nothing')\"", where="inst.jsonl:3")
    with pytest.raises(InstanceError) as err:
        solve(inst, config_from({"iterations": 2}))
    msg = str(err.value)
    assert msg.startswith("inst.jsonl:3: instance quiet-1: the test command gave no outcome for any test")
    assert "collected nothing" in msg and "\n" not in msg


def test_forked_pytest_gives_the_same_outcomes_and_coverage(user_repo, tmp_path):
    from toolkit.swe_search import testrun
    from toolkit.swe_search.localize import coverage_spectrum

    root, _ = user_repo
    cov = {}
    for forked in (False, True):
        testrun.use_forked_pytest(forked)
        try:
            scratch = tmp_path / f"scratch-{forked}"
            scratch.mkdir()
            report = run_tests(root, TESTS, timeout=60, coverage_dir=scratch)
        finally:
            testrun.use_forked_pytest(False)
        assert report.outcomes == WANT
        cov[forked] = coverage_spectrum(report, root)
    assert cov[True] == cov[False] and ("calc/ops.py", 2) in cov[True]
