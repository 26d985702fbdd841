"""Error types on planted errors; the noisy stand-in's accuracy follows 0.95^K; shortcut detectors."""

from __future__ import annotations

from toolkit.ssm_limits.curves import curve_rows, per_step_p, wilson
from toolkit.ssm_limits.errors import score_item
from toolkit.ssm_limits.parse import parse_reply
from toolkit.ssm_limits.prompts import gold_cot
from toolkit.ssm_limits.standin import data_from_prompt, noisy_solve
from toolkit.ssm_limits.tasks import generate


def _score(problem, text, mode="cot"):
    return score_item(problem, {**parse_reply(problem["task"], text), "mode": mode})


def test_gold_chain_of_thought_is_faithful_correct():
    for task, size, depth in [("compose", 6, 3), ("iterate", 8, 4), ("mult", 3, 3), ("dp", 7, None), ("zebra", 3, 3)]:
        p = generate(task, size, depth, 1, "test", seed=0)[0]
        s = _score(p, gold_cot(p))
        assert s["correct"] and s["outcome"] == "faithful-correct", (task, s)


def test_planted_local_error_then_propagation():
    p = generate("iterate", 16, 5, 1, "test", seed=1)[0]
    f, x = p["data"]["f"], p["data"]["x"]
    own, values = x, []
    for i in range(1, 6):
        own = f[own]
        if i == 2:  # the planted error: a wrong value at step 2, then the right operation on it
            own = next(v for v in range(16) if v != own and f[v] != f[f[own]])
        values.append(own)
    text = "\n".join(f"step {i}: {v}" for i, v in enumerate(values, 1)) + f"\nAnswer: {values[-1]}"
    s = _score(p, text)
    # after the local error every step is the right operation on a wrong parent: propagated
    assert s["node_types"] == ["correct", "local", "propagated", "propagated", "propagated"]
    assert s["first_local"] == 2 and s["outcome"] in ("compounding-wrong", "shortcut-correct")


def test_restored_node_and_shortcut_correct():
    p = generate("iterate", 16, 3, 1, "test", seed=4)[0]
    gold = [n["value"] for n in p["trace"][1:]]
    wrong = next(str(v) for v in range(16) if str(v) != gold[0] and str(p["data"]["f"][v]) != gold[1])
    text = f"step 1: {wrong}\nstep 2: {gold[1]}\nstep 3: {gold[2]}\nAnswer: {gold[2]}"
    s = _score(p, text)
    # step 3: the right step on a right parent, but below an error, so not fully correct
    assert s["node_types"] == ["local", "restored", "correct-step"]
    assert s["outcome"] == "shortcut-correct"


def test_unparsable_text_scores_as_parse():
    p = generate("mult", 3, 2, 1, "test", seed=0)[0]
    s = _score(p, "I am not sure what to do here.")
    assert s["outcome"] == "parse" and not s["correct"]


def test_shortcut_detectors():
    p = generate("iterate", 16, 4, 1, "test", seed=2)[0]
    skip = p["trace"][2]["value"]  # f^2(x): two hops skipped
    s = _score(p, f"Answer: {skip}", mode="direct")
    if skip != p["answer"]:
        assert "skip-hop:2" in s["shortcuts"]
    m = generate("mult", 4, 3, 1, "test", seed=0)[0]
    ans = m["answer"]
    mid = ans[0] + ("1" if ans[1] != "1" else "2") + ans[2:]
    assert "edge-digits" in _score(m, f"Answer: {mid}", mode="direct")["shortcuts"]
    z = generate("zebra", 3, 2, 1, "test", seed=0)[0]
    rows = z["answer"].split("; ")
    swapped = "; ".join([rows[1].replace("house 2", "house 1"), rows[0].replace("house 1", "house 2"), *rows[2:]])
    assert any(h.startswith("violated:") for h in _score(z, f"Answer: {swapped}", mode="direct")["shortcuts"])


def test_standin_reads_prompt_only_and_accuracy_is_095_power_k():
    for task, size, depth in [("compose", 5, 2), ("mult", 4, 3), ("dp", 8, None), ("zebra", 3, 3)]:
        p = generate(task, size, depth, 1, "test", seed=0)[0]
        got_task, data = data_from_prompt(p["prompt_cot"])
        assert got_task == task and {k: data[k] for k in data if k in p["data"]} == \
            {k: p["data"][k] for k in data if k in p["data"]}
    scores = []
    for k in (1, 4, 8):
        for p in generate("iterate", 32, k, 300, "test", seed=0):
            scores.append(_score(p, noisy_solve(p["prompt_cot"])))
    for row in curve_rows(scores):
        lo, hi = wilson(row["correct"], row["n"], z=2.58)
        expected = 0.95 ** row["depth"]
        assert lo <= expected <= hi + 0.02, row  # a wrong value can land back on the right one (+1/n)
        assert row["p_step"] is not None
    assert abs(per_step_p([(k, 0.9 ** k) for k in range(1, 6)]) - 0.9) < 1e-9


def test_wrong_node_on_wrong_parents_is_propagated_only_when_it_is_the_operation():
    p = generate("iterate", 16, 3, 1, "test", seed=1)[0]
    f, x = p["data"]["f"], p["data"]["x"]
    gold = [f[x], f[f[x]], f[f[f[x]]]]
    bad1 = next(v for v in range(16) if v != gold[0] and f[v] != gold[1])
    bad2 = next(v for v in range(16) if v not in (gold[1], f[bad1]))  # wrong, and not f of its own parent
    text = f"step 1: {bad1}\nstep 2: {bad2}\nstep 3: {f[bad2]}\nAnswer: {f[bad2]}"
    s = _score(p, text)
    assert s["node_types"] == ["local", "unexplained", "propagated"]


def _iterate(f, x, k):
    from toolkit.ssm_limits.tasks import iterate_trace

    data = {"n": len(f), "k": k, "f": f, "x": x}
    return {"task": "iterate", "data": data, "trace": iterate_trace(data)}


def test_node_types_on_hand_built_chains():
    from toolkit.ssm_limits.errors import node_types

    p = _iterate([1, 2, 3, 0, 6, 7, 4, 5], 0, 4)  # gold chain 1, 2, 3, 0

    def kinds(values):
        return [n["type"] for n in node_types(p, {f"s{i}": str(v) for i, v in enumerate(values, 1)})]
    assert kinds([1, 2, 3, 0]) == ["correct"] * 4
    # 4 on a right parent is local; f(4) = 6 and f(6) = 4 are right steps on wrong parents
    assert kinds([1, 4, 6, 4]) == ["correct", "local", "propagated", "propagated"]
    # 2 is not f(5) = 7 but is the gold value: restored; then right steps below the error
    assert kinds([5, 2, 3, 0]) == ["local", "restored", "correct-step", "correct-step"]
    # 6 is not f(5), 2 is not f(6) = 4: wrong on wrong parents without the operation; 0 is gold but not f(2)
    assert kinds([5, 6, 2, 0]) == ["local", "unexplained", "unexplained", "restored"]
    assert kinds([1, 2]) == ["correct", "correct", "missing", "missing"]


def test_node_types_of_input_free_and_summed_nodes():
    from toolkit.ssm_limits.errors import node_types
    from toolkit.ssm_limits.tasks import mult_trace

    data = {"a": 12, "b": 34}
    p = {"task": "mult", "data": data, "trace": mult_trace(data)}  # p0 = 48, p1 = 360, r1 = 408
    assert [n["type"] for n in node_types(p, {"p0": "48", "p1": "360", "r1": "408"})] == ["correct"] * 3
    # p1 has no parents: a wrong partial product is local; 48 + 350 is the right sum of wrong parts
    assert [n["type"] for n in node_types(p, {"p0": "48", "p1": "350", "r1": "398"})] == \
        ["correct", "local", "propagated"]
    assert [n["type"] for n in node_types(p, {"p0": "48", "p1": "350", "r1": "408"})] == \
        ["correct", "local", "restored"]


def test_zebra_nodes_are_rechecked_from_the_models_own_assignments():
    from toolkit.ssm_limits.errors import node_types

    z = generate("zebra", 3, 2, 1, "test", seed=0)[0]
    gold = {n["id"]: n["value"] for n in z["trace"]}
    assert {n["type"] for n in node_types(z, gold)} == {"correct"}
    first = z["trace"][0]
    assert all(q.startswith("clue") for q in first["parents"])  # forced by clues alone
    wrong = {**gold, first["id"]: str(int(first["value"]) % 3 + 1)}
    assert node_types(z, wrong)[0]["type"] == "local"


def test_floor_is_the_most_frequent_value_guess_and_the_fit_uses_it():
    from toolkit.ssm_limits.curves import per_step_p_floor
    from toolkit.ssm_limits.errors import floor

    p = generate("iterate", 8, 1, 1, "test", seed=0)[0]
    p = {**p, "data": {**p["data"], "f": [3, 3, 3, 1, 1, 0, 3, 2], "x": 0}, "answer": "3"}
    assert floor(p) == 1.0
    assert floor({**p, "answer": "1"}) == 0.0
    assert floor({**p, "data": {**p["data"], "f": [3, 3, 1, 1, 0, 2, 4, 5]}, "answer": "1"}) == 0.5
    assert floor(generate("mult", 2, 2, 1, "test", seed=0)[0]) is None
    # accuracy = floor + (1 - floor) 0.8^K: the floored fit finds 0.8; the fit through the origin does not
    points = [(k, 0.2 + 0.8 * 0.8 ** k, 0.2) for k in range(1, 6)]
    assert abs(per_step_p_floor(points) - 0.8) < 1e-9
    assert per_step_p([(k, acc) for k, acc, _ in points]) > 0.85
