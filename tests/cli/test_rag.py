"""`reason rag` end to end on the shipped world and the recorded stand-in replay."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets" / "rag"
WORLD = ASSETS / "world-1000"
REPLAY = ASSETS / "replay-demo.jsonl"
QUESTIONS = ASSETS / "demo-questions.jsonl"


def _records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_run_eval_sweep_on_replay(reason, tmp_path):
    run = reason("rag", "run", "--method", "iterdrag", "-k", "2", "-n", "3", "--questions", str(QUESTIONS),
                 "--index", str(WORLD / "idx"), "--llm", f"replay:{REPLAY}", "-o", str(tmp_path / "a.jsonl"))
    assert run.returncode == 0, run.stderr
    assert "pipeline demo, not a model result" in run.stderr
    answers = _records((tmp_path / "a.jsonl").read_text())
    assert len(answers) == 8 and all(a["backend"] == "stand-in" for a in answers)
    ev = reason("rag", "eval", str(tmp_path / "a.jsonl"), "--gold", str(QUESTIONS))
    assert ev.returncode == 0, ev.stderr
    scores = {s["task"]: s for s in _records(ev.stdout)}
    # the rule reader follows every chain of at most 3 hops; 4-hop questions need a 4th follow-up
    assert scores["1hop"]["acc"] == scores["3hop"]["acc"] == 1.0 and scores["4hop"]["acc"] == 0.0
    assert scores["all"]["acc"] == 0.75 and scores["all"]["mean_effective_tokens"] > 100
    sw = reason("rag", "sweep", "--questions", str(QUESTIONS), "--index", str(WORLD / "idx"), "--demos",
                str(WORLD / "demos.jsonl"), "--llm", f"replay:{REPLAY}", "--grid", "k=1,2;n=1,3",
                "--methods", "iterdrag", "--budgets", "1k,4k", "-o", str(tmp_path / "s.jsonl"))
    assert sw.returncode == 0, sw.stderr
    recs = _records((tmp_path / "s.jsonl").read_text())
    configs = {r["config"]: r for r in recs if r["type"] == "rag.config"}
    assert len(configs) == 3 + 4  # the three anchors + the 2x2 grid
    assert configs["iterdrag:k=1:m=0:n=3"]["tasks"]["3hop"]["acc"] == 1.0
    assert configs["iterdrag:k=1:m=0:n=1"]["tasks"]["3hop"]["acc"] == 0.0
    best = {(o["budget"], o["task"]): o for o in recs if o["type"] == "rag.optimum"}
    assert best[(4000, "all")]["score"] >= best[(1000, "all")]["score"]
    assert all(o["cost"] <= o["budget"] for o in best.values())
    fit = reason("rag", "fit", "--sweep", str(tmp_path / "s.jsonl"))
    assert fit.returncode == 2 and "at least 7" in fit.stderr  # a 0/1 rule reader gives no graded P


def test_replay_does_not_depend_on_the_cpu(reason, tmp_path):
    """The recording replays when numpy runs without its AVX2/AVX-512 kernels, as on another CPU: which of
    several equal-scoring documents fills the k-th place must not come from a vectorised top-k (with numpy's
    argpartition, this run asked for request 5449a07e..., which the recording lacks)."""
    import numpy

    core = getattr(numpy, "_core", None) or numpy.core
    dispatched = " ".join(core._multiarray_umath.__cpu_dispatch__)
    run = reason("rag", "run", "--method", "iterdrag", "-k", "2", "-n", "3", "--questions", str(QUESTIONS),
                 "--index", str(WORLD / "idx"), "--llm", f"replay:{REPLAY}", "-o", str(tmp_path / "a.jsonl"),
                 env={"NPY_DISABLE_CPU_FEATURES": dispatched})
    assert run.returncode == 0, run.stderr
    assert len(_records((tmp_path / "a.jsonl").read_text())) == 8


def test_data_index_fit_plan(reason, tmp_path):
    hot = [{"_id": "a", "question": "Who?", "answer": "Ann", "supporting_facts": [["T1", 0]],
            "context": [["T1", ["Ann wrote it."]], ["T2", ["Bob did not."]]]},
           {"_id": "b", "question": "What?", "answer": "Box", "supporting_facts": [["T2", 0]],
            "context": [["T2", ["Bob did not."]]]}]
    (tmp_path / "h.json").write_text(json.dumps(hot))
    d = reason("rag", "data", "--format", "hotpotqa", "--input", str(tmp_path / "h.json"), "-o",
               str(tmp_path / "qa.jsonl"), "--corpus-out", str(tmp_path / "corpus.jsonl"))
    assert d.returncode == 0, d.stderr
    assert len(_records((tmp_path / "corpus.jsonl").read_text())) == 2
    ix = reason("rag", "index", "--corpus", str(tmp_path / "corpus.jsonl"), "--out", str(tmp_path / "idx"))
    assert ix.returncode == 0, ix.stderr
    assert json.loads((tmp_path / "idx" / "meta.json").read_text())["documents"] == 2
    bad = reason("rag", "data", "--format", "musique", "--input", str(tmp_path / "h.json"), "-o",
                 str(tmp_path / "no.jsonl"))
    assert bad.returncode == 2 and "field 'paragraphs' missing (format musique)" in bad.stderr
    assert not (tmp_path / "no.jsonl").exists()
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _synthetic_sweep()))
    fit = reason("rag", "fit", "--sweep", str(tmp_path / "s.jsonl"), "--fit-on", "split:0.5", "-o",
                 str(tmp_path / "cam.json"))
    assert fit.returncode == 0, fit.stderr
    cam = json.loads((tmp_path / "cam.json").read_text())
    assert cam["type"] == "rag.cam" and cam["fit"]["points"] >= cam["heldout"]["points"] > 0
    assert cam["heldout"]["r2"] > 0.95  # the sweep follows the model's own form
    assert cam["shift"] == [0.01, 0.01, 0.01]  # the paper's log(theta + 0.01) unless asked otherwise
    bad_shift = reason("rag", "fit", "--sweep", str(tmp_path / "s.jsonl"), "--theta-shift", "half")
    assert bad_shift.returncode == 2 and "--theta-shift half: expected one of paper, one" in bad_shift.stderr
    for budget in ("1k", "4k"):
        pl = reason("rag", "plan", "--cam", str(tmp_path / "cam.json"), "--budget", budget)
        assert pl.returncode == 0, pl.stderr
        plans = _records(pl.stdout)
        assert plans and all(p["config"] and p["cost"] <= p["budget"] for p in plans)
    res = reason("rag", "plan", "--cam", str(tmp_path / "cam.json"), "--budget", "abc")
    assert res.returncode == 2 and "budget 'abc'" in res.stderr


def _synthetic_sweep() -> list[dict]:
    """rag.config records whose per-task accuracy follows a known allocation model (two tasks)."""
    import math

    from toolkit.rag.cam import features, theta

    a, b, c = [0.5, 0.2, 0.6], [1.0, -0.5, 0.0], -1.2
    info = {"2hop": (0.3, 0.1), "3hop": (0.1, 0.05)}
    out = []
    for method, k, m, n in [("zs", 0, 0, 1), ("rag", 1, 0, 1), ("ms", 0, 1, 1)] + \
            [("rag", k, 0, 1) for k in (2, 4, 8)] + [("drag", k, 1, 1) for k in (1, 4)] + \
            [("iterdrag", k, 0, n) for k in (1, 2, 4) for n in (1, 2, 3)]:
        rec = {"type": "rag.config", "schema": 1, "config": f"{method}:k={k}:m={m}:n={n}", "method": method, "k": k,
               "m": m, "n": n, "feasible": True, "tasks": {}}
        for task, (idoc, ishot) in info.items():
            iv = (idoc, ishot, 0.0)
            z = sum((x + y * i) * f for x, y, i, f in zip(a, b, iv, features(theta(rec)), strict=True)) + c
            cost = 60.0 * (1 + k) * (1 + m) * (n + 1 if method == "iterdrag" else 1)
            rec["tasks"][task] = {"questions": 1000, "acc": round(1 / (1 + math.exp(-z)), 4), "cost": cost}
        out.append(rec)
    return out


def test_dry_run_estimates_match_a_real_run_within_a_fifth(reason, tmp_path):
    """The dry run's cost and calls a question against the replayed stand-in's real counts, per configuration."""
    args = ["rag", "sweep", "--questions", str(QUESTIONS), "--index", str(WORLD / "idx"), "--demos",
            str(WORLD / "demos.jsonl"), "--grid", "k=1,2;n=1,3", "--methods", "iterdrag", "--budgets", "1k,4k"]
    real = reason(*args, "--llm", f"replay:{REPLAY}", "-o", str(tmp_path / "real.jsonl"))
    dry = reason(*args, "--dry-run", "-o", str(tmp_path / "dry.jsonl"))
    assert real.returncode == 0 and dry.returncode == 0, real.stderr + dry.stderr
    measured = {r["config"]: r for r in _records((tmp_path / "real.jsonl").read_text()) if r["type"] == "rag.config"}
    answers = reason("rag", "run", "--method", "iterdrag", "-k", "2", "-n", "3", "--questions", str(QUESTIONS),
                     "--index", str(WORLD / "idx"), "--llm", f"replay:{REPLAY}")
    calls = [a["calls"] for a in _records(answers.stdout)]
    estimated = {r["config"]: r for r in _records((tmp_path / "dry.jsonl").read_text())}
    assert set(estimated) == set(measured)
    for key, est in estimated.items():
        assert abs(est["cost"] - measured[key]["cost"]) <= 0.2 * measured[key]["cost"], (key, est, measured[key])
        assert est["questions"] == 8 and est["total_calls"] == round(est["calls"] * 8)
    assert abs(estimated["iterdrag:k=2:m=0:n=3"]["calls"] - sum(calls) / len(calls)) <= 0.2 * sum(calls) / len(calls)
    assert estimated["zs:k=0:m=0:n=1"]["calls"] == 1.0
