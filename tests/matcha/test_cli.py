"""The real `reason matcha` executable: pair | train | adapt, the py: protocol, bad input and bench --resume."""

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_reason

SMALL = ["--nodes", "400", "--features", "40", "--mu", "0.2"]


def records(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    d = tmp_path_factory.mktemp("matcha")
    r = run_reason("matcha", "pair", "--setting", "homo2hetero", "--seed", "3", "--out-dir", str(d / "g"), *SMALL)
    assert r.returncode == 0, r.stderr
    graphs = records(r.stdout)
    assert [g["role"] for g in graphs] == ["source", "target"] and graphs[1]["edge_homophily"] < 0.4
    r = run_reason("matcha", "train", "--graph", str(d / "g/source.npz"), "--out", str(d / "m"), "--epochs", "40")
    assert r.returncode == 0, r.stderr
    assert {p.name for p in (d / "m").iterdir()} == {"config.json", "model.safetensors", "memory.safetensors",
                                                    "training_log.json"}
    return d


def test_adapt_writes_a_result_and_node_predictions(trained):
    d = trained
    r = run_reason("matcha", "adapt", "--model", str(d / "m"), "--graph", str(d / "g/target.npz"), "--tta", "adanpc",
                   "--rounds", "5", "--oracle", "--nodes-out", str(d / "p.jsonl"), "--seed", "1")
    assert r.returncode == 0, r.stderr
    (res,) = records(r.stdout)
    assert res["type"] == "matcha.result" and len(res["trace"]) == 5
    assert res["accuracy_base"] == res["trace"][0]["accuracy"] and res["gamma_before"][0] == pytest.approx(1.0, abs=1)
    preds = records((d / "p.jsonl").read_text())
    assert len(preds) == 400 and preds[0]["type"] == "matcha.prediction"
    acc = sum(p["pred"] == p["label"] for p in preds) / 400
    assert acc == pytest.approx(res["accuracy"], abs=1e-6)


def test_py_model_protocol_and_its_errors(trained, tmp_path):
    (tmp_path / "mymodels.py").write_text(
        "import torch\n"
        "from toolkit.matcha.gprgnn import load_model\n"
        "class Wrapped(torch.nn.Module):\n"
        "    def __init__(self, inner):\n"
        "        super().__init__(); self.inner = inner; self.classifier = inner.classifier\n"
        "        self.hop_weights = inner.hop_weights\n"
        "    def featurize(self, x, edge_index):\n"
        "        return self.inner.featurize(x, edge_index)\n"
        f"def good():\n    return Wrapped(load_model({str(trained / 'm')!r})[0])\n"
        "def bad():\n    return torch.nn.Linear(2, 2)\n")
    env = {"PYTHONPATH": f"{ROOT}:{tmp_path}"}
    target = str(trained / "g/target.npz")
    r = run_reason("matcha", "adapt", "--model", "py:mymodels:good", "--graph", target, "--tta", "tent",
                   "--rounds", "3", env=env)
    assert r.returncode == 0, r.stderr
    direct = run_reason("matcha", "adapt", "--model", str(trained / "m"), "--graph", target, "--tta", "tent",
                        "--rounds", "3")
    a, b = records(r.stdout)[0], records(direct.stdout)[0]
    assert a["gamma_after"] == pytest.approx(b["gamma_after"], abs=1e-4)  # generic path = cached fast path
    r = run_reason("matcha", "adapt", "--model", "py:mymodels:bad", "--graph", target, env=env)
    assert r.returncode == 2 and "lacks the attribute 'featurize'" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("args, message", [
    (["adapt", "--model", "{m}", "--graph", "{d}/other.npz"], "model expects 40 features, graph has 7"),
    (["adapt", "--model", "{d}", "--graph", "{d}/other.npz"], "lacks config.json"),
    (["adapt", "--model", "{m}", "--graph", "{d}/g/target.npz", "--tta", "sgd"], "unknown base TTA"),
    (["adapt", "--model", "{m}", "--graph", "{d}/g/target.npz", "--rounds", "-1"], "--rounds -1"),
])
def test_bad_input_is_one_line_exit_2(trained, args, message):
    import numpy as np

    d = trained
    np.savez(d / "other.npz", x=np.ones((5, 7), np.float32), edge_index=np.zeros((2, 0), np.int64))
    r = run_reason("matcha", *[a.format(d=d, m=d / "m") for a in args])
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr and r.stdout == ""


def test_bench_resume_runs_only_missing_cells_and_report(tmp_path):
    cells = tmp_path / "cells.jsonl"
    common = ["matcha", "bench", "--settings", "low2high", "--tta", "erm", "--nodes", "300", "--features", "30",
              "--epochs", "20", "--rounds", "3", "-o", str(cells)]
    assert run_reason(*common, "--seeds", "0").returncode == 0
    first = cells.read_text()
    r = run_reason(*common, "--seeds", "0-1", "--resume")
    assert r.returncode == 0, r.stderr
    rows = records(cells.read_text())
    assert cells.read_text().startswith(first) and len(rows) == 4
    assert [(c["seed"], c["matcha"]) for c in rows] == [(0, False), (0, True), (1, False), (1, True)]
    r = run_reason(*common[:-2], "--rounds", "4", "-o", str(cells), "--seeds", "0-1", "--resume")
    assert r.returncode == 2 and "other settings" in r.stderr
    r = run_reason("matcha", "report", str(cells), "--png", str(tmp_path / "g.png"))
    (table,) = records(r.stdout)
    assert table["rows"][0]["seeds"] == [0, 1] and (tmp_path / "g.png").stat().st_size > 1000


def test_bench_reuses_saved_models_with_other_tta_hyperparameters(tmp_path):
    common = ["matcha", "bench", "--settings", "high2low", "--tta", "t3a", "--nodes", "300", "--features", "30",
              "--epochs", "20", "--rounds", "3", "--seeds", "0"]
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert run_reason(*common, "--save-models", str(tmp_path / "m"), "-o", str(first)).returncode == 0
    weights = (tmp_path / "m" / "high2low-seed0" / "model.safetensors").read_bytes()
    r = run_reason(*common, "--models", str(tmp_path / "m"), "--t3a-temperature", "0.1", "-o", str(second))
    assert r.returncode == 0, r.stderr
    a, b = records(first.read_text()), records(second.read_text())
    assert "tta_hp" not in a[0]["config"] and b[0]["config"]["tta_hp"] == {"t3a_temperature": 0.1}
    assert [c["source_accuracy"] for c in a] == [c["source_accuracy"] for c in b]  # the same source model
    assert a[0]["accuracy"] == b[0]["accuracy"]  # a temperature changes no T3A prediction
    assert (tmp_path / "m" / "high2low-seed0" / "model.safetensors").read_bytes() == weights
    r = run_reason(*common, "--models", str(tmp_path / "m"), "--resume", "-o", str(second))
    assert r.returncode == 2 and "other settings" in r.stderr


def test_select_scores_every_candidate_and_picks_the_best(tmp_path):
    models = tmp_path / "m"
    run_reason("matcha", "bench", "--settings", "homo2hetero", "--tta", "erm", "--nodes", "300", "--features", "30",
               "--mu", "0.2", "--epochs", "20", "--rounds", "1", "--seeds", "5", "--save-models", str(models))
    small = ["--nodes", "300", "--features", "30", "--mu", "0.2"]
    r = run_reason("matcha", "select", "--models", str(models), "--tta", "t3a", "--seeds", "5", *small, "--settings",
                   "homo2hetero", "--grid", "t3a_temperature=1,0.1 rounds=3", "--grid", "t3a_filter_k=5 rounds=3")
    assert r.returncode == 0, r.stderr
    *scored, choice = records(r.stdout)
    assert [c["candidate"] for c in scored] == [{"t3a_temperature": 1.0, "rounds": 3},
                                                {"t3a_temperature": 0.1, "rounds": 3},
                                                {"t3a_filter_k": 5, "rounds": 3}]
    best = max(scored, key=lambda c: c["mean_matcha"])
    assert choice["chosen"] == best["candidate"] and choice["mean_matcha"] == best["mean_matcha"]
    r = run_reason("matcha", "select", "--models", str(models), "--tta", "t3a", "--seeds", "6", "--grid", "lr=1")
    assert r.returncode == 2 and "no saved source model" in r.stderr
    r = run_reason("matcha", "select", "--models", str(models), "--tta", "t3a", "--seeds", "5", "--grid", "foo=1")
    assert r.returncode == 2 and "unknown hyperparameter" in r.stderr
    r = run_reason("matcha", "select", "--models", str(models), "--tta", "t3a", "--seeds", "5", "--grid", "lr=1")
    assert r.returncode == 2 and "model expects 30 features, --features is 2000" in r.stderr


def test_shipped_table_is_recomputed_from_shipped_cells():
    from toolkit.core.records import load_records
    from toolkit.matcha.report import markdown_table, summarize
    from toolkit.matcha.select import MATCHA_KEYS

    assets = Path(ROOT) / "assets" / "matcha"
    cells = load_records(assets / "cells.jsonl", types=["matcha.cell"])
    assert (assets / "table.md").read_text().strip() == markdown_table(summarize(cells)).strip()
    assert markdown_table(summarize(cells)).split("\n")[2] in (assets / "README.md").read_text()
    tuned = load_records(assets / "cells-tuned.jsonl", types=["matcha.cell"])
    assert (assets / "table-tuned.md").read_text().strip() == markdown_table(summarize(tuned)).strip()
    assert markdown_table(summarize(tuned)).split("\n")[2] in (assets / "README.md").read_text()
    # the tuned cells used only the values chosen on the validation seed, never on that seed itself
    chosen = {t: json.loads((assets / f"select-{t}.jsonl").read_text().splitlines()[-1]) for t in ("t3a", "tent")}
    for cell in tuned:
        want = {k: v for k, v in chosen[cell["tta"]]["chosen"].items() if k not in MATCHA_KEYS}
        assert cell["config"]["tta_hp"] == want and cell["seed"] not in chosen[cell["tta"]]["seeds"]
        assert cell["config"]["lr"] == chosen[cell["tta"]]["chosen"].get("lr", 1.0)


def test_shipped_model_reproduces_its_cell():
    """The seed-0 homo2hetero model, adapted on its unseen seed-1000 target, gives the shipped cell's accuracy."""
    from toolkit.core.records import load_records
    from toolkit.matcha.adapt import matcha_adapt
    from toolkit.matcha.bench import make_pair
    from toolkit.matcha.gprgnn import load_model

    assets = Path(ROOT) / "assets" / "matcha"
    model, memory = load_model(str(assets / "models" / "homo2hetero"))
    assert memory["z"].shape == (5000, 32)
    _, target = make_pair("homo2hetero", 0)
    res = matcha_adapt(model, target, "erm", rounds=50, stop="last", memory=memory)  # the paper's output
    cell = next(c for c in load_records(assets / "cells.jsonl") if (c["setting"], c["seed"], c["tta"], c["matcha"])
                == ("homo2hetero", 0, "erm", True))
    assert res.trace[0]["accuracy"] == pytest.approx(cell["accuracy_trace"][0], abs=0.002)
    assert res.trace[-1]["accuracy"] == pytest.approx(cell["accuracy"], abs=0.002)


def test_bench_cells_hold_the_default_output_and_the_papers_beside_it(tmp_path):
    common = ["matcha", "bench", "--settings", "homo2hetero", "--tta", "erm", "--nodes", "300", "--features", "30",
              "--mu", "0.2", "--epochs", "20", "--rounds", "6", "--seeds", "0"]
    r = run_reason(*common, "-o", str(tmp_path / "a.jsonl"), "--schedule", "cosine")
    assert r.returncode == 0, r.stderr
    _, cell = records((tmp_path / "a.jsonl").read_text())
    assert cell["config"]["schedule"] == "cosine" and cell["config"]["stop"] == "pic"
    assert cell["accuracy"] == cell["accuracy_trace"][cell["output_round"]]
    assert cell["output_round"] == cell["pic_stop_round"] and cell["accuracy_last_round"] == cell["accuracy_trace"][-1]
    r = run_reason(*common, "-o", str(tmp_path / "b.jsonl"), "--stop", "last", "--schedule", "constant")
    _, paper = records((tmp_path / "b.jsonl").read_text())
    assert "stop" not in paper["config"] and paper["accuracy"] == paper["accuracy_trace"][-1]
    assert cell["accuracy_paper"] == paper["accuracy"]  # the paper's run, recorded beside the cosine one
    r = run_reason(*common, "--stop", "best")
    assert r.returncode == 2 and "--stop 'best'" in r.stderr
