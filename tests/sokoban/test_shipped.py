"""The shipped agents and probes: the README's solve rates (DRC and feed-forward baseline) hold on fresh levels;
plan GIFs from the shipped probes; the best (layer, alpha) of the shipped intervention sweep on the first 10 test-half
cases against random vectors; the DRC(2,2) chunks' claim-3 sweeps replayed on their whole test halves; the thinking
check fixed in advance, as the shipped plays of chunk 11h-h record it; claim 2's direction in the full probe runs of
chunks 12h, 13, 15 and 17, with the logreg and the official conv fit, and its missed margins as a strict xfail; the
diagnostic tanh(cell) runs reading more than the raw cell state."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.sokoban.test_cli import _main
from toolkit.core.assets import asset_path


def _records(name: str, kind: str) -> list[dict]:
    lines = asset_path(f"sokoban/{name}").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["type"] == kind]


# the fresh levels each agent is measured on: count, grid, box counts, most optimal moves (300 8x8 levels: on 100 the
# DRC(3,3) sits exactly 5 points off its 1000-level figure)
SIX = (100, (6, 6), [1, 2], 40)
EIGHT = (300, (8, 8), [1, 2, 3], 60)


@pytest.mark.parametrize("agent, results, levels", [
    ("agent", "solve_rates.jsonl", SIX), ("ff_agent", "ff.jsonl", SIX),
    ("agent-stage3", "stage3/solve_rates.jsonl", SIX), ("agent-8x8", "8x8/solve_rates-drc22.jsonl", EIGHT),
    ("agent-8x8-drc33", "8x8/solve_rates-drc33.jsonl", EIGHT),
    ("resume/agent-8x8-drc33-c4", "8x8/solve_rates-c4-drc33.jsonl", EIGHT),
    ("resume/agent-8x8-c3h", "8x8/solve_rates-c3h-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-drc33-c5h", "8x8/solve_rates-c5h-drc33.jsonl", EIGHT),
    ("resume/agent-8x8-c4h", "8x8/solve_rates-c4h-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c5h", "8x8/solve_rates-c5h-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c5x", "8x8/solve_rates-c5x-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c6h", "8x8/solve_rates-c6h-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c8lo", "8x8/solve_rates-c8lo-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c8hi", "8x8/solve_rates-c8hi-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c10lo", "8x8/solve_rates-c10lo-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c10x", "8x8/solve_rates-c10x-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c11x", "8x8/solve_rates-c11x-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c11h", "8x8/solve_rates-c11h-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c12h", "8x8/solve_rates-c12h-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c13", "8x8/solve_rates-c13-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c13lo", "8x8/solve_rates-c13lo-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c15lo", "8x8/solve_rates-c15lo-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c15vlo", "8x8/solve_rates-c15vlo-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c17lo", "8x8/solve_rates-c17lo-drc22.jsonl", EIGHT),
    ("resume/agent-8x8-c18lo", "8x8/solve_rates-c18lo-drc22.jsonl", EIGHT)])
def test_shipped_agent_within_five_points_of_readme_on_fresh_levels(agent, results, levels):
    from toolkit.sokoban.drc import load_agent
    from toolkit.sokoban.generate import generate
    from toolkit.sokoban.rollout import rollout

    (k0,) = [r for r in _records(f"results/{results}", "sokoban.solve_rate") if r["think"] == 0]
    assert f"{100 * k0['rate']:.1f}%" in asset_path("sokoban/README.md").read_text()
    fresh = [lv for lv, _, _ in generate(*levels, "test", 4242)]  # seed unused by the shipped files
    rate = np.mean([e.solved for e in rollout(load_agent(asset_path(f"sokoban/{agent}")), fresh)])
    assert abs(rate - k0["rate"]) <= 0.05, (rate, k0["rate"])


def test_show_gif_on_shipped_probes(tmp_path, capsys, monkeypatch):
    from PIL import Image

    code, out, err = _main(capsys, monkeypatch, "sokoban", "show", str(asset_path("sokoban/levels/test.txt")),
                           "--probes", str(asset_path("sokoban/probes.safetensors")), "--steps", "2",
                           "--gif", str(tmp_path / "plan.gif"))
    assert code == 0, err
    recs = [json.loads(line) for line in out.splitlines()]
    plans = [r for r in recs if r["type"] == "sokoban.plan"]
    (gif,) = [r for r in recs if r["type"] == "sokoban.plan_gif"]
    assert gif["frames"] == len(plans) == Image.open(tmp_path / "plan.gif").n_frames


def _replay_test_half(agent_dir: str, results: str, cases: str, probes: str, random_arm: str, protocol: str,
                      limit: int | None = None) -> tuple[dict, list[dict], list[dict]]:
    """A shipped sweep's best (layer, alpha) on its test-half cases: (summary, probe results, random results)."""
    from toolkit.sokoban.drc import load_agent
    from toolkit.sokoban.interventions import run_cases
    from toolkit.sokoban.probes import load_probes, probe_key

    agent = load_agent(asset_path(f"sokoban/{agent_dir}"))
    (best,) = _records(results, "sokoban.intervention_summary")
    test = [c for c in _records(cases, "sokoban.case") if c["half"] == "test"][:limit]
    weight = load_probes(asset_path(f"sokoban/{probes}"), agent.fingerprint)[
        probe_key("CA", "cell", best["layer"], 1)][0]
    probe, rand = (run_cases(agent, test, weight, best["layer"], best["alpha"], arm=arm, seed=0, protocol=protocol)
                   for arm in ("probe", random_arm))
    return best, probe, rand


def _ten_test_cases():
    # the shipped sweep ran the first-push protocol with per-square random vectors
    _, probe, rand = _replay_test_half("agent", "results/interventions.jsonl", "cases.jsonl", "probes.safetensors",
                                       "random-per-square", "first-push", limit=10)
    return sum(r["success"] for r in probe), sum(r["success"] for r in rand)


@pytest.mark.xfail(strict=True, reason="claim 3 missed with the shipped agent: its 1x1 cell probes are near chance "
                   "(assets/sokoban/README.md); measured 0 probe and 0 random successes of 10")
def test_best_alpha_redirects_ten_shipped_cases_random_vectors_do_not():
    probe, rand = _ten_test_cases()
    assert probe >= 5 and rand <= 2, (probe, rand)


@pytest.mark.parametrize("chunk", ["c4h", "c5h", "c6h", "c8lo", "c8hi", "c10lo", "c10x", "c11x", "c11h", "c12h",
                                   "c13", "c13lo", "c15lo", "c15vlo", "c17lo", "c18lo"])
def test_drc22_interventions_meet_the_claim_on_the_test_half(chunk):
    """Claim 3 with the DRC(2,2) chunks 4h, 5h, 6h, both branches of 8h, 10h, 11h, 13 and 15, 12h, 17-lo and 18-lo:
    their shipped small-run CA probes, written by the official protocol at the sweep's (layer, alpha), redirect >= 50%
    of the test-half cases, >= 30 points more than random vectors."""
    from toolkit.sokoban.interventions import success_rate

    best, probe, rand = _replay_test_half(f"resume/agent-8x8-{chunk}", f"results/8x8/interventions-{chunk}-drc22.jsonl",
                                          f"results/8x8/cases-{chunk}-drc22.jsonl",
                                          f"results/8x8/probes-{chunk}-drc22.safetensors", "random", "official")
    probe, rand = success_rate(probe), success_rate(rand)
    assert (probe, rand) == (best["success"]["probe"], best["success"]["random"])
    assert probe >= 0.50 and probe - rand >= 0.30, (probe, rand)


def test_thinking_check_fixed_in_advance_holds_in_the_shipped_plays():
    """The thinking claim by the check fixed before its levels existed (README, chunk 12h section): chunk 11h-h
    solves more of each of two sets of 36000 new hard levels at k = 4 than at k = 0, McNemar p < 0.05 on both, and the
    README gives these counts; a regenerated play that missed would fail here."""
    readme = asset_path("sokoban/README.md").read_text()
    for name in ("g", "h"):
        rates = _records(f"results/8x8/solve_rates-fresh-think-{name}-c11h-drc22.jsonl", "sokoban.solve_rate")
        k0, k4 = ({r["think"]: r for r in rates}[k] for k in (0, 4))
        assert k0["n"] == k4["n"] == 36000 and k0["agent"].endswith("resume/agent-8x8-c11h")
        assert k4["solved"] > k0["solved"] and k4["mcnemar_p_vs_k0"] < 0.05, (name, k0["solved"], k4["solved"])
        assert f"| {k0['solved']} (" in readme and f"| {k4['solved']} (" in readme


def _probe_means(name: str) -> dict[tuple[str, str, int, int], float]:
    """{(concept, source, layer, kernel): mean macro F1 over seeds} of one shipped probe run."""
    runs: dict[tuple[str, str, int, int], list[float]] = {}
    for r in _records(f"results/8x8/{name}", "sokoban.probe"):
        runs.setdefault((r["concept"], r["source"], r["layer"], r["kernel"]), []).append(r["macro_f1"])
    return {k: float(np.mean(v)) for k, v in runs.items()}


def _top_cell(means: dict, concept: str) -> int:
    return max(layer for (c, source, layer, _) in means if c == concept and source == "cell")


def _top_cell_margin(means: dict, concept: str) -> float:
    return means[(concept, "cell", _top_cell(means, concept), 3)] - means[(concept, "obs", 0, 3)]


# chunk 12h (the 3-box check was judged on it), the chunk-13 and chunk-15 branches and chunks 17-lo to 19-lo, both
# kinds of level; chunk 18-an and chunk 20-lo on the mixed levels
PROBE_RUNS = [f"probes-full{levels}-{chunk}-drc22.jsonl"
              for chunk in ("c12h", "c13", "c13lo", "c15lo", "c15vlo", "c17lo", "c18lo", "c19lo")
              for levels in ("", "-3box")] + ["probes-full-c18an-drc22.jsonl", "probes-full-c20lo-drc22.jsonl"]


@pytest.mark.parametrize("run", PROBE_RUNS)
def test_probe_runs_read_each_squares_future_beyond_the_board(run):
    """Claim 2's direction, and the README's figures: for both concepts the best 3x3 state probe beats the
    observation's 3x3 probe and the top cell's 1x1 probe beats the observation's 1x1 probe; the README gives the top
    cell's 3x3 margins as the run records them."""
    means, readme = _probe_means(run), asset_path("sokoban/README.md").read_text()
    for concept in ("CA", "CB"):
        states = [v for (c, source, _, kernel), v in means.items() if c == concept and source != "obs" and kernel == 3]
        assert max(states) > means[(concept, "obs", 0, 3)], (concept, max(states))
        assert means[(concept, "cell", _top_cell(means, concept), 1)] > means[(concept, "obs", 0, 1)], concept
        assert f"{_top_cell_margin(means, concept):+.3f}" in readme, concept


# the same episodes (collect is seeded) fitted with probe's default, the official conv probe: 3x3, cell and obs
CONV_RUNS = ["probes-full-conv-c13lo-drc22.jsonl", "probes-full-conv-c15lo-drc22.jsonl",
             "probes-full-3box-conv-c15lo-drc22.jsonl", "probes-full-conv-c17lo-drc22.jsonl",
             "probes-full-conv-c18lo-drc22.jsonl", "probes-full-conv-c19lo-drc22.jsonl",
             "probes-full-conv-c20lo-drc22.jsonl"]


@pytest.mark.parametrize("run", CONV_RUNS)
def test_official_conv_probe_runs_read_beyond_the_board(run):
    """Claim 2's direction with the official fit: the top cell's 3x3 probe above the observation's for both
    concepts, with the margins the README gives."""
    means, readme = _probe_means(run), asset_path("sokoban/README.md").read_text()
    assert {r["fit"] for r in _records(f"results/8x8/{run}", "sokoban.probe")} == {"conv"}
    for concept in ("CA", "CB"):
        assert _top_cell_margin(means, concept) > 0, concept
        assert f"{_top_cell_margin(means, concept):+.3f}" in readme, concept


@pytest.mark.xfail(strict=True, reason="claim 2's margins missed by every agent and both fits "
                   "(assets/sokoban/README.md): chunk 12h CB +0.087 / CA +0.051 on the mixed levels, +0.057 / +0.027 "
                   "on the 3-box levels; chunk 13-lo +0.101 / +0.071, chunk 19-lo +0.115 / +0.073, chunk 20-lo "
                   "+0.113 / +0.082; the official conv fit +0.098 / +0.091 at best (chunk 19-lo)")
@pytest.mark.parametrize("run", PROBE_RUNS + CONV_RUNS)
def test_top_cell_3x3_probes_beat_the_board_by_the_target(run):
    means = _probe_means(run)
    assert _top_cell_margin(means, "CB") >= 0.15 and _top_cell_margin(means, "CA") >= 0.10


# the diagnostic runs on tanh(cell), beside the logreg runs on the same episodes
TANH_RUNS = [(f"probes-full{levels}-tanh-{chunk}-drc22.jsonl", f"probes-full{levels}-{chunk}-drc22.jsonl")
             for chunk, levels in (("c13lo", ""), ("c15lo", ""), ("c15lo", "-3box"), ("c18lo", ""), ("c19lo", ""))]


@pytest.mark.parametrize("run, raw", TANH_RUNS)
def test_a_linear_probe_reads_more_of_the_plan_from_tanh_of_the_cell_state(run, raw):
    """The diagnosis of the missed margins: on the same episodes, at every layer and kernel, a probe on tanh(c) reads
    more of both concepts than one on c; the README gives the top layer's tanh(c) 3x3 margins over the board."""
    squashed, means, readme = _probe_means(run), _probe_means(raw), asset_path("sokoban/README.md").read_text()
    for concept in ("CA", "CB"):
        for layer in range(_top_cell(means, concept) + 1):
            for kernel in (1, 3):
                assert squashed[(concept, "tanh-cell", layer, kernel)] > means[(concept, "cell", layer, kernel)], \
                    (concept, layer, kernel)
        top = squashed[(concept, "tanh-cell", _top_cell(means, concept), 3)] - means[(concept, "obs", 0, 3)]
        assert f"{top:+.3f}" in readme, concept
