"""EM/F1/Acc, the allocation model's fit and plan, grid and budget parsing."""

from __future__ import annotations

import math
import random

import pytest

from toolkit.core.errors import InputError
from toolkit.rag import cam, metrics
from toolkit.rag.sweep import parse_budget, parse_grid


def test_em_f1_acc_with_aliases_and_articles():
    assert metrics.exact_match("The Eiffel Tower!", ["eiffel tower"]) == 1.0
    assert metrics.exact_match("Paris, France", ["paris"]) == 0.0
    assert metrics.accuracy("it is Paris, France", ["London", "paris"]) == 1.0
    assert metrics.accuracy("parisian", ["paris"]) == 0.0  # whole words only
    assert metrics.f1("the big red house", ["a red house"]) == pytest.approx(2 * (2 / 3) * 1 / (2 / 3 + 1))
    assert metrics.f1("nothing", ["else"]) == 0.0
    assert metrics.scores("an apple", ["Apple"]) == {"em": 1.0, "f1": 1.0, "acc": 1.0}


def _points(a, b, c, info, noise=0.0, seed=0):
    rng = random.Random(seed)
    pts = []
    for task, (idoc, ishot) in info.items():
        for k in (0, 1, 2, 4, 8, 16):
            for m in (0, 1, 2, 4):
                for n in (1, 2, 3):
                    t = (k, m, n)
                    iv = (idoc, ishot, 0.0)
                    z = sum((aa + bb * ii) * f for aa, bb, ii, f in zip(a, b, iv, cam.features(t), strict=True)) + c
                    z += rng.gauss(0, noise)
                    pts.append({"task": task, "theta": t, "p": 1 / (1 + math.exp(-z)), "n": 10**6,
                                "config": f"{task}{t}"})
    return pts


def test_cam_recovers_known_parameters():
    a, b, c = [0.6, 0.3, 0.5], [1.2, -0.8, 0.0], -1.5
    info = {"t1": (0.3, 0.05), "t2": (0.05, 0.2), "t3": (0.15, 0.1)}
    model = cam.fit(_points(a, b, c, info, noise=0.02), info)
    for got, want in zip(model["a"] + model["b"] + [model["c"]], a + b + [c], strict=True):
        assert abs(got - want) <= 0.05, (model, a, b, c)
    assert cam.quality(model, _points(a, b, c, info))["r2"] > 0.99


def test_cam_one_task_drops_b_and_needs_seven_points():
    info = {"only": (0.2, 0.1)}
    pts = _points([0.5, 0.2, 0.4], [0.0, 0.0, 0.0], -1.0, info)
    model = cam.fit(pts, info)
    assert model["b"] == [0.0, 0.0, 0.0] and abs(model["a"][0] - 0.5) < 0.05
    with pytest.raises(InputError, match="at least 7"):
        cam.fit(pts[:6], info)
    with pytest.raises(InputError, match="anchor"):
        cam.informativeness([p for p in pts if p["theta"] != (1, 0, 1)])


def test_cam_features_are_the_papers_log_of_theta_shifted_by_001():
    # Appendix H: the values in theta are shifted by eps = 0.01 before the log (0 documents, 0 shots count)
    assert cam.features((0, 0, 1)) == pytest.approx([math.log(0.01), math.log(0.01), math.log(1.01)])
    assert cam.features((16, 2, 3)) == pytest.approx([math.log(16.01), math.log(2.01), math.log(3.01)])
    assert cam.features((16, 2, 3), cam.SHIFTS["one"]) == pytest.approx([math.log(17), math.log(3), math.log(3)])
    info = {"t1": (0.3, 0.05), "t2": (0.05, 0.2)}
    pts = _points([0.6, 0.3, 0.5], [1.2, -0.8, 0.0], -1.5, info)
    model = cam.fit(pts, info)
    assert model["shift"] == [0.01, 0.01, 0.01]
    for p in pts[::7]:  # the stored shift is the one predict uses
        assert cam.predict(model, p["theta"], p["task"]) == pytest.approx(p["p"], abs=1e-3)
    # data made by the paper's form: the earlier log(1 + k) form cannot fit it as well
    other = cam.fit(pts, info, shift=cam.SHIFTS["one"])
    assert cam.quality(model, pts)["r2"] > 0.999 > cam.quality(other, pts)["r2"]
    # a model file without the field was fitted with log(1 + k), log(1 + m), log n, and is read that way
    legacy = {k: v for k, v in other.items() if k != "shift"}
    assert cam.predict(legacy, (4, 1, 3), "t1") == pytest.approx(cam.predict(other, (4, 1, 3), "t1"))
    with pytest.raises(InputError, match="--theta-shift half: expected one of paper, one"):
        cam.parse_shift("half")


def test_plan_keeps_the_budget():
    model = {"a": [0.5, 0.2, 0.4], "b": [0, 0, 0], "c": -1.0, "info": {"t": [0.2, 0.1]},
             "cost_model": {"iterdrag": [0.3, 0.3, 1.0, 5.0]}}
    cands = [{"method": "rag", "k": k, "m": 0, "n": 1, "cost": 30.0 * k} for k in (1, 2, 4, 8, 16, 32)]
    cands.append({"method": "iterdrag", "k": 8, "m": 2, "n": 3, "cost": None})
    for budget in (50, 100, 500, 1000, 5000):
        best = cam.plan(model, budget, "t", cands)
        assert best["cost"] <= budget
    assert cam.plan(model, 100, "t", cands)["k"] == 2  # the largest k that fits: P grows in k here
    big = cam.plan(model, 10**6, "t", cands)
    assert big["method"] == "iterdrag" and big["cost_estimated"]
    assert cam.plan(model, 10, "t", cands) is None


def test_grid_and_budget_errors():
    assert parse_grid("k=0,1,2;m=0;n=1,2") == {"k": [0, 1, 2], "m": [0], "n": [1, 2]}
    for bad, msg in (("q=1", "unknown key"), ("k=-1", "non-negative"), ("k=1.5", "non-negative"),
                     ("n=0", "n must be"), ("k=", "empty list"), ("", "empty")):
        with pytest.raises(InputError, match=msg):
            parse_grid(bad)
    assert parse_budget("4k") == 4000 and parse_budget("1M") == 1_000_000 and parse_budget("512") == 512
    for bad in ("abc", "0", "-2k"):
        with pytest.raises(InputError, match="budget"):
            parse_budget(bad)


def test_claims_on_a_flat_sweep_report_why_the_model_cannot_be_fitted():
    from toolkit.rag.claims import claims

    recs = [{"type": "rag.config", "config": f"rag:k={k}:m=0:n=1", "method": "rag", "k": k, "m": 0, "n": 1,
             "feasible": True, "tasks": {"3hop": {"questions": 2, "acc": 0.0, "cost": 50.0 * (k + 1),
                                                  "by_question": {"a": 0.0, "b": 0.0}}}} for k in (1, 2, 4)]
    recs.append({**recs[0], "config": "iterdrag:k=1:m=0:n=2", "method": "iterdrag", "n": 2,
                 "tasks": {"3hop": {"questions": 2, "acc": 1.0, "cost": 120.0, "by_question": {"a": 1.0, "b": 1.0}}}})
    out = list(claims(recs, budgets=[1000], claim_budget=1000))
    first = out[0]
    assert first["iterdrag"]["acc"] == 1.0 and first["rag"]["acc"] == 0.0 and first["paired"]["diff"] == 1.0
    assert "at least 7" in out[1]["error"] or "anchor" in out[1]["error"]


def test_cam_theta_uses_the_iteration_count_n_as_in_the_paper():
    # theta = (k, m, n): n generation iterations; one call (zs, ms, rag, drag) is n = 1
    assert cam.theta({"method": "iterdrag", "k": 4, "m": 1, "n": 3}) == (4, 1, 3)
    assert cam.theta({"method": "drag", "k": 4, "m": 1, "n": 1}) == (4, 1, 1)
    assert cam.theta({"method": "iterdrag", "k": 4, "m": 1, "n": 1}) == cam.theta({"method": "drag", "k": 4, "m": 1,
                                                                                   "n": 1})
    model = {"a": [0.5, 0.2, 0.4], "b": [1.0, 0.5, 0.0], "c": -1.0, "info": {"t": [0.2, 0.1]}}
    # by hand: (0.5 + 1.0*0.2) ln 5 + (0.2 + 0.5*0.1) ln 2 + 0.4 ln 3 - 1
    #        = 0.7*1.609438 + 0.25*0.693147 + 0.4*1.098612 - 1 = 0.739338 -> sigmoid 0.676851
    assert cam.predict(model, cam.theta({"method": "iterdrag", "k": 4, "m": 1, "n": 3}), "t") == pytest.approx(
        0.676851, abs=1e-6)
    # DRAG k=4, m=1: the iteration term is 0.4 ln 1 = 0 -> z = 0.299893, sigmoid 0.574416
    assert cam.predict(model, cam.theta({"method": "drag", "k": 4, "m": 1, "n": 1}), "t") == pytest.approx(
        0.574416, abs=1e-6)


def test_claims_label_drag_as_drag_and_the_best_one_call_configuration_apart():
    from toolkit.rag.claims import iterdrag_vs_rag

    def rec(method, k, m, n, acc, cost):
        return {"config": f"{method}:k={k}:m={m}:n={n}", "method": method, "k": k, "m": m, "n": n, "feasible": True,
                "tasks": {"2hop": {"acc": acc, "cost": cost, "by_question": {"a": acc}}}}

    recs = [rec("zs", 0, 0, 1, 0.0, 20), rec("rag", 4, 0, 1, 0.3, 140), rec("drag", 1, 1, 1, 0.1, 100),
            rec("iterdrag", 1, 0, 3, 0.5, 400)]
    out = iterdrag_vs_rag(recs, 4000, "2hop")
    assert out["drag"]["config"] == "drag:k=1:m=1:n=1" and out["drag"]["acc"] == 0.1
    assert out["one_call"]["config"] == "rag:k=4:m=0:n=1"
    assert out["rag"]["config"] == "rag:k=4:m=0:n=1" and out["iterdrag"]["acc"] == 0.5
    assert "drag" not in iterdrag_vs_rag(recs[:2], 4000, "2hop")  # no DRAG configuration: no DRAG entry


def _sampled_sweep(a, b, c, info, questions=400, seed=0):
    """rag.config records whose per-question outcomes are drawn from a known allocation model."""
    rng = random.Random(seed)
    grid = [("zs", 0, 0, 1), ("ms", 0, 1, 1)] + [("rag", k, 0, 1) for k in (1, 2, 4, 8, 16)] + \
        [("drag", k, m, 1) for k in (1, 4, 8) for m in (1, 2, 4)] + \
        [("iterdrag", k, m, n) for k in (1, 4) for m in (0, 2) for n in (2, 3, 4)]
    recs = []
    for method, k, m, n in grid:
        tasks = {}
        for task, iv in info.items():
            model = {"a": a, "b": b, "c": c, "info": {task: iv}, "shift": list(cam.SHIFTS["paper"])}
            p = cam.predict(model, cam.theta({"method": method, "k": k, "m": m, "n": n}), task)
            by_q = {f"{task}-{i}": float(rng.random() < p) for i in range(questions)}
            cost = (20.0 + 30.0 * k + 40.0 * m * (1 + k)) * (2 * n + 1 if method == "iterdrag" else 1)
            tasks[task] = {"questions": questions, "acc": sum(by_q.values()) / questions, "cost": cost,
                           "by_question": by_q}
        recs.append({"type": "rag.config", "config": f"{method}:k={k}:m={m}:n={n}", "method": method, "k": k,
                     "m": m, "n": n, "feasible": True, "tasks": tasks})
    return recs


def test_question_split_pick_is_near_the_held_out_best_when_the_model_holds():
    from toolkit.rag.claims import question_split

    info = {"2hop": (0.15, 0.05), "3hop": (0.05, 0.02)}
    recs = _sampled_sweep([0.35, 0.1, 0.6], [1.0, 0.5, 0.0], -2.5, info)
    out = question_split(recs, [500, 2000, 8000], seed=0)
    assert out["questions_fit"] == out["questions_test"] == 400 and len(out["rows"]) == 6
    assert out["mean_gap"] <= 0.05 and out["max_gap"] <= 0.08, out["rows"]
    for row in out["rows"]:  # the pick keeps the budget
        cost = next(r["tasks"][row["task"]]["cost"] for r in recs if r["config"] == row["picked"])
        assert cost <= row["budget"]


def test_plan_is_checked_against_the_measured_best_within_the_budget():
    model = {"measured": {"rag:k=4:m=0:n=1": {"t": 0.3}, "iterdrag:k=1:m=0:n=3": {"t": 0.5},
                          "iterdrag:k=4:m=0:n=4": {"t": 0.1}},
             "costs": {"rag:k=4:m=0:n=1": {"t": 150.0}, "iterdrag:k=1:m=0:n=3": {"t": 440.0},
                       "iterdrag:k=4:m=0:n=4": {"t": 1100.0}}}
    out = cam.check_plan(model, {"config": "iterdrag:k=4:m=0:n=4"}, 4000, "t")
    assert out == {"best_measured": "iterdrag:k=1:m=0:n=3", "best_measured_score": 0.5, "measured_score": 0.1,
                   "gap": 0.4}
    assert cam.check_plan(model, {"config": "rag:k=4:m=0:n=1"}, 200, "t")["gap"] == 0.0
    assert cam.check_plan({}, None, 200, "t") == {}
