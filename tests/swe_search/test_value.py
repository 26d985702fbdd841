"""The offline value's content checks: one reproduction test per statement assert, and half credit for a
failing test that passes on its base-commit execution path (a compensating edit)."""

import sys
from pathlib import Path

import pytest

from toolkit.swe_search.instances import load_instances
from toolkit.swe_search.offline import pass_value, reproduction_names, reproduction_test, split_asserts
from toolkit.swe_search.pathtrace import reproduction_paths as trace_paths
from toolkit.swe_search.runner import solve
from toolkit.swe_search.search import SearchConfig

BENCH = Path(__file__).resolve().parents[2] / "assets" / "swe_search" / "instances.jsonl"


def test_each_assert_of_the_statement_becomes_its_own_reproduction_test():
    statement = ("Broken:\n\n```python\nfrom pkg.m import f, g\nx = f(1)\nassert x == 2\nassert g(x) == 3\n```\n")
    assert split_asserts("from pkg.m import f, g\nx = f(1)\nassert x == 2\nassert g(x) == 3") == [
        "from pkg.m import f, g\nx = f(1)\nassert x == 2", "from pkg.m import f, g\nx = f(1)\nassert g(x) == 3"]
    text = reproduction_test(statement, split=True)
    assert text == ("def test_reproduction_1():\n    from pkg.m import f, g\n    x = f(1)\n    assert x == 2\n\n\n"
                    "def test_reproduction_2():\n    from pkg.m import f, g\n    x = f(1)\n    assert g(x) == 3\n")
    assert reproduction_names(text) == ["test_reproduction_1", "test_reproduction_2"]
    # one assert, or no split asked: the single test as before
    assert reproduction_test(statement) == ("def test_reproduction():\n    from pkg.m import f, g\n    x = f(1)\n"
                                            "    assert x == 2\n    assert g(x) == 3\n")
    assert split_asserts("assert f(1)") is None and split_asserts("assert (") is None


def test_credit_weights_passing_tests():
    # (0.5 + 1) / 3 passing -> 200 * 0.5 - 100 = 0
    assert pass_value({"a": "passed", "b": "passed", "c": "failed"}, {"a": 0.5}) == 0.0
    # (2 + 0.5) / 3 -> 200 * 5/6 - 100 = 66.6667
    assert pass_value({"a": "passed", "b": "passed", "c": "passed"}, {"c": 0.5}) == 66.6667


def test_a_constant_shift_keeps_the_path_and_a_loop_bound_changes_it(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    code = "def window(xs, k):\n    total = 0\n    for i in range(k - 1):\n        total += xs[i]\n    return total\n"
    repro = "def test_reproduction():\n    from pkg.w import window\n    assert window([4, 9, 1, 9], 3) == 14\n"
    (tmp_path / "test_reproduce_issue.py").write_text(repro)

    def path_with(source: str) -> str:
        (tmp_path / "pkg" / "w.py").write_text(source)
        for mod in [m for m in sys.modules if m.startswith("pkg")]:
            sys.modules.pop(mod)
        return trace_paths(tmp_path, "test_reproduce_issue.py", ["test_reproduction"], sys.executable,
                           30)["test_reproduction"]

    base = path_with(code)
    assert path_with(code.replace("total = 0", "total = 1")) == base  # same lines, same order
    assert path_with(code.replace("range(k - 1)", "range(k - 0)")) != base  # one more iteration
    assert path_with(code) == base  # deterministic


def test_a_path_does_not_depend_on_the_tests_traced_before_it(tmp_path):
    """Each test imports the source modules it calls; traced after another test in one process, it would
    skip the import's lines and look like a changed path."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "v.py").write_text("LIMIT = 10\n\n\ndef fits(x):\n    return 0 <= x < LIMIT\n")
    (tmp_path / "test_reproduce_issue.py").write_text(
        "def test_reproduction_1():\n    from pkg.v import fits\n    assert fits(10)\n\n\n"
        "def test_reproduction_2():\n    from pkg.v import fits\n    assert fits(3)\n")
    both = trace_paths(tmp_path, "test_reproduce_issue.py", ["test_reproduction_1", "test_reproduction_2"],
                       sys.executable, 30)
    alone = trace_paths(tmp_path, "test_reproduce_issue.py", ["test_reproduction_2"], sys.executable, 30)
    assert both["test_reproduction_2"] == alone["test_reproduction_2"]
    assert both["test_reproduction_1"] == both["test_reproduction_2"]  # same lines, other values


@pytest.mark.parametrize("instance", ["bench__trap-count-0"])
def test_mcts_passes_over_the_compensating_edits_and_submits_the_fix(instance):
    """bench__trap-count-0: `n = 0` -> `n = 1` and `n += 1` -> `n += 2` pass the reproduction without
    changing its path (3 agent tests: (2 + 0.5) / 3 -> 66.6667); `x > limit` -> `x >= limit` takes the branch
    once more (100). With the plain pass rate all three score 100 and the search stopped on two traps."""
    inst = load_instances(BENCH, only=[instance])[0]
    pred, tree = solve(inst, SearchConfig(iterations=50))
    by_edit = {n["action"]["args"]["new"].strip().splitlines()[-1].strip(): n["reward"] for n in tree["nodes"]
               if (n["action"] or {}).get("name") == "string_replace" and n["depth"] == 1}
    assert tree["nodes"][0]["reward"] == pytest.approx(33.3333)
    assert by_edit["n = 1"] == pytest.approx(66.6667) and by_edit["n += 2"] == pytest.approx(66.6667)
    assert by_edit["if x >= limit:"] == 100.0
    assert pred["resolved"] and "+        if x >= limit:" in pred["model_patch"]
    # the tracer ran the reproduction only, and is listed with the test commands
    tracer = [c for c in tree["agent_commands"] if "line tracer" in c]
    assert tracer and all("test_reproduce_issue test_reproduction" in c for c in tracer)
    assert not any("test_issue" in c for c in tree["agent_commands"])


def test_plain_pass_rate_is_the_credit_of_one():
    """--path-credit 1: every passing test counts 1, so the two traps score 100 like the fix, the stop rule
    fires on two finished traps and MCTS submits one (what the plain pass-rate value did)."""
    inst = load_instances(BENCH, only=["bench__trap-count-0"])[0]
    pred, tree = solve(inst, SearchConfig(iterations=50, path_credit=1.0))
    assert all(n["reward"] == 100.0 for n in tree["nodes"][1:4])
    assert not pred["resolved"] and "+            n += 2" in pred["model_patch"]


def test_a_plateau_of_three_validators_becomes_three_steps():
    """bench__multi3-0: the statement asserts fits_0(10), fits_1(13), fits_2(16); as one test no single fix
    changed an outcome. As three tests the root scores 3 of 6 (0.0) and fixing fits_0 alone, a value-only
    edit on an unchanged path, scores (3 + 0.5) / 6 -> 16.6667."""
    inst = load_instances(BENCH, only=["bench__multi3-0"])[0]
    _, tree = solve(inst, SearchConfig(iterations=6))
    assert tree["agent_tests"][-3:] == [f"test_reproduce_issue.py::test_reproduction_{k}" for k in (1, 2, 3)]
    assert tree["nodes"][0]["reward"] == 0.0
    fixed = [n["reward"] for n in tree["nodes"] if (n["action"] or {}).get("name") == "string_replace"
             and n["action"]["args"]["new"].rstrip().endswith("return lo <= x <= 10")]
    assert fixed and fixed[0] == pytest.approx(16.6667)


def test_a_linear_run_that_submits_a_trap_is_counted_trapped():
    """The linear agent finishes at its first all-pass state, a trap of bench__trap-count-0 whose value is
    66.6667: trapped is judged by the agent's test outcomes (all pass), not by a value of 100."""
    from toolkit.swe_search.compare import compare_instance

    inst = load_instances(BENCH, only=["bench__trap-count-0"])[0]
    (rec,) = compare_instance({"instance": inst.to_job(), "strategies": ["linear"], "seeds": [0], "budgets": [50],
                               "options": {}, "forked": False})
    assert not rec["resolved"] and rec["submitted"] and rec["trapped"]


def test_mcnemar_p_keeps_significant_digits():
    from toolkit.swe_search.compare import mcnemar, summarize

    assert mcnemar([(True, False)] * 3 + [(True, True)]) == (3, 0, 0.25)  # 2 * 1 / 2^3
    recs = [{"instance_id": f"i{k}", "seed": 0, "budget": 50, "family": "f", "strategy": s, "trapped": False,
             "resolved": s == "mcts"} for k in range(16) for s in ("mcts", "linear")]
    # 16 vs 0 discordant: 2 / 2^16 = 3.0518e-05, not rounded away
    assert summarize(recs)["mcnemar"]["p_value"] == 3.052e-05
