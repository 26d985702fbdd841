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
    assert s["node_types"][:2] == ["correct", "local"]
    assert s["first_local"] == 2 and s["outcome"] in ("compounding-wrong", "shortcut-correct")
    assert all(t in ("propagated", "restored") for t in s["node_types"][2:])
    assert "propagated" in s["node_types"]


def test_restored_node_and_shortcut_correct():
    p = generate("iterate", 16, 3, 1, "test", seed=4)[0]
    gold = [n["value"] for n in p["trace"][1:]]
    wrong = str((int(gold[0]) + 1) % 16)
    text = f"step 1: {wrong}\nstep 2: {gold[1]}\nstep 3: {gold[2]}\nAnswer: {gold[2]}"
    s = _score(p, text)
    assert s["node_types"] == ["local", "restored", "correct"]
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
