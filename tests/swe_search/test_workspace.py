import json
import os
import sys
import time

import pytest

from tests.swe_search.conftest import FILES, make_repo, snapshot
from toolkit.core.errors import InputError
from toolkit.swe_search.actions import Env, execute
from toolkit.swe_search.instances import Instance
from toolkit.swe_search.runner import config_from, solve
from toolkit.swe_search.testrun import build_test_argv, run_tests
from toolkit.swe_search.workspace import Workspace

TESTS = ["tests/test_ops.py::test_add", "tests/test_ops.py::test_double"]


HIDDEN = "tests/test_issue.py::test_add"
TEST_PATCH = ("diff --git a/tests/test_issue.py b/tests/test_issue.py\nnew file mode 100644\n--- /dev/null\n"
              "+++ b/tests/test_issue.py\n@@ -0,0 +1,5 @@\n+from calc.ops import add\n+\n+\n+def test_add():\n"
              "+    assert add(2, 3) == 5\n")
ISSUE = "add() subtracts:\n\n```python\nfrom calc.ops import add\nassert add(4, 1) == 5\n```\n"
VISIBLE = {"calc/__init__.py": FILES["calc/__init__.py"], "calc/ops.py": FILES["calc/ops.py"],
           "tests/test_ops.py": "from calc.ops import double\n\n\ndef test_double():\n    assert double(4) == 8\n"}


def _instance(repo, commit, **kw):
    """FAIL_TO_PASS exists only in test_patch; the statement carries a reproduction."""
    return Instance("t-1", repo, commit, ISSUE, [HIDDEN], [TESTS[1]], test_patch=TEST_PATCH, **kw)


def test_offline_search_never_runs_hidden_tests_and_leaves_user_checkout_byte_identical(tmp_path, private_tmp):
    root = tmp_path / "user-checkout"
    commit = make_repo(root, VISIBLE)
    (root / "untracked.txt").write_text("user's own file\n")
    before = snapshot(root)
    pred, tree = solve(_instance(root, commit), config_from({"iterations": 6, "test_timeout": 60}))
    assert pred["resolved"] and pred["chosen_finished"]
    again = solve(_instance(root, commit), config_from({"iterations": 6, "test_timeout": 60}))
    assert json.dumps(again) == json.dumps([pred, tree])  # same inputs + seed => identical records
    assert "-    return a - b\n+    return a + b\n" in pred["model_patch"]
    assert "test_reproduce_issue" not in pred["model_patch"]  # the reproduction stays out of the patch
    assert snapshot(root) == before
    assert list(private_tmp.iterdir()) == []
    kinds = [n["kind"] for n in tree["nodes"]]
    assert kinds[0] == "root" and "finish" in kinds
    assert tree["nodes"][0]["visits"] == pred["expansions"]
    # the agent ran the visible test and its reproduction, never the hidden one; the final check did
    assert tree["agent_tests"] == [TESTS[1], "test_reproduce_issue.py::test_reproduction"]
    assert tree["agent_commands"] and not any("test_issue" in c for c in tree["agent_commands"])
    assert all(c.endswith("tests/test_issue.py::test_add tests/test_ops.py::test_double")
               for c in tree["final_commands"])
    assert tree["final_tests"] == {HIDDEN: "passed", TESTS[1]: "passed"}


def test_actions_refuse_edits_outside_and_non_unique(user_repo, tmp_path, private_tmp):
    root, commit = user_repo
    outside = tmp_path / "outside.py"
    with Workspace(root, commit) as ws:
        env = Env(ws, TESTS)
        for path in ("../outside.py", str(outside), "../../x.py", ".git/config"):
            obs = execute(env, {"name": "string_replace", "args": {"path": path, "old": "a", "new": "b"}})
            assert not obs.ok and not obs.changed and "Refused" in obs.text
            obs = execute(env, {"name": "create_file", "args": {"path": path, "content": "x"}})
            assert not obs.ok and "Refused" in obs.text
        assert not outside.exists()
        obs = execute(env, {"name": "string_replace",
                            "args": {"path": "calc/ops.py", "old": "    return x\n", "new": "    return 0\n"}})
        assert not obs.ok and "occurs 2 times" in obs.text
        assert "return 0" not in (ws.root / "calc/ops.py").read_text()
        obs = execute(env, {"name": "string_replace", "args": {"path": "calc/ops.py", "old": "a - b", "new": "a + b"}})
        assert obs.ok and obs.changed and "line 2" in obs.text
        assert "Found 1 definition(s) of add" in execute(env, {"name": "find_function", "args": {"name": "add"}}).text
        hits = execute(env, {"name": "search_code", "args": {"query": "def double"}}).text
        assert "calc/ops.py:5: def double" in hits
        view = execute(env, {"name": "view_code", "args": {"path": "calc/ops.py", "start": 1, "end": 2}}).text
        assert "   2     return a + b" in view
        assert not execute(env, {"name": "frobnicate", "args": {}}).ok
        assert not execute(env, {"name": "view_code", "args": {"bogus": 1}}).ok
        tests = execute(env, {"name": "run_tests", "args": {}})
        assert tests.tests.outcomes == {t: "passed" for t in TESTS}
        tmp = ws.tmp
    assert not tmp.exists() and list(private_tmp.iterdir()) == []
    assert "return a - b" in (root / "calc/ops.py").read_text()


def test_hanging_test_command_is_killed_with_its_children(user_repo, tmp_path):
    root, commit = user_repo
    pidfile = tmp_path / "child.pid"
    script = (f"import subprocess, sys, time; p = subprocess.Popen([sys.executable, '-c', 'import time; "
              f"time.sleep(60)']); open({str(pidfile)!r}, 'w').write(str(p.pid)); time.sleep(60)")
    cmd = f"{{python}} -c \"{script}\""
    start = time.monotonic()
    report = run_tests(root, TESTS, test_cmd=cmd, timeout=2.0)
    assert time.monotonic() - start < 20
    assert report.timed_out and "timed out after 2 s" in report.output
    assert set(report.outcomes.values()) == {"missing"}
    child = int(pidfile.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the test command's child process survived the timeout")


def test_not_a_repo_and_bad_commit_are_clear_errors(user_repo, tmp_path, private_tmp):
    root, commit = user_repo
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(InputError, match="field 'repo'.*is not a git repository"):
        Workspace(plain, "HEAD", "inst.jsonl:1")
    junk = tmp_path / "junk.bundle"
    junk.write_text("not a bundle")
    with pytest.raises(InputError, match="neither a git repository nor a git bundle"):
        Workspace(junk, "HEAD", "inst.jsonl:1")
    with pytest.raises(InputError, match="inst.jsonl:2: field 'base_commit': 'deadbeef' is not a commit"):
        Workspace(root, "deadbeef", "inst.jsonl:2")
    assert list(private_tmp.iterdir()) == []


def test_test_command_uses_this_interpreter(user_repo):
    root, _ = user_repo
    report = run_tests(root, TESTS, test_cmd="{python} -m pytest -q -rA -p no:cacheprovider", timeout=60)
    assert report.outcomes == {TESTS[0]: "failed", TESTS[1]: "passed"}
    argv = build_test_argv(None, ["t"])
    assert argv[:3] == [sys.executable, "-m", "pytest"] and argv[-1] == "t"


def test_instance_patches_are_checked_by_name(user_repo, private_tmp):
    root, commit = user_repo
    missing = TEST_PATCH.replace("new file mode 100644\n--- /dev/null", "--- a/tests/test_gone.py")
    missing = missing.replace("+++ b/tests/test_issue.py", "+++ b/tests/test_gone.py")
    with pytest.raises(InputError, match=r"^x.jsonl:1: instance t-1: test_patch changes tests/test_gone.py, which is "
                                         r"not in the repository at base_commit$"):
        solve(Instance("t-1", root, commit, ISSUE, [HIDDEN], [TESTS[1]], where="x.jsonl:1", test_patch=missing),
              config_from({"iterations": 1}))
    clash = TEST_PATCH.replace("new file mode 100644\n--- /dev/null\n+++ b/tests/test_issue.py",
                               "--- a/tests/test_ops.py\n+++ b/tests/test_ops.py")
    inst = Instance("t-2", root, commit, ISSUE, [HIDDEN], [TESTS[1]], where="x.jsonl:2", test_patch=clash)
    with pytest.raises(InputError, match=r"^x.jsonl:2: instance t-2: test_patch does not apply to base_commit"):
        solve(inst, config_from({"iterations": 1}))
    assert list(private_tmp.iterdir()) == []


def test_test_output_does_not_depend_on_the_callers_terminal_or_ci(tmp_path, monkeypatch):
    # the output is quoted in LLM prompts, so a recorded replay must match on any terminal and in CI,
    # where pytest would otherwise print summary lines untruncated
    root = tmp_path / "repo"
    long_failure = "def test_long():\n    assert False, 'x' * 150\n"
    make_repo(root, {**FILES, "tests/test_long.py": long_failure})
    ids = ["tests/test_long.py::test_long", TESTS[1]]
    outputs = []
    for columns, ci in (("40", None), ("200", "true")):
        monkeypatch.setenv("COLUMNS", columns)
        monkeypatch.setenv("FORCE_COLOR", "1")
        for name in ("CI", "BUILD_NUMBER"):
            if ci:
                monkeypatch.setenv(name, ci)
            else:
                monkeypatch.delenv(name, raising=False)
        outputs.append(run_tests(root, ids, timeout=60).output)
    assert outputs[0] == outputs[1] and "=" * 80 not in outputs[0] and "\x1b[" not in outputs[0]
    assert "x" * 100 not in outputs[0].split("short test summary info")[1]  # the summary line stays truncated
