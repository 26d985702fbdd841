"""Bench/sweep planning and summaries."""

import pytest

from toolkit.core.errors import InputError
from toolkit.gama import Job, LLMSpec, bench_jobs, play, summarize, sweep_jobs
from toolkit.gama.plan import GENERALIZABILITY, parse_vary


def test_sweep_crosses_variants_temperatures_and_seeds():
    template = Job(game="guess", players="llm*1,random", n_players=2, llm=LLMSpec(uri="replay:x"))
    jobs = sweep_jobs(template, ["guess", "bar"], 2, [0, 1], [0.0, 0.7], parse_vary(["guess:ratio=1/2"]))
    assert len(jobs) == (1 + 1) * 2 * 2 * 2
    labels = {(j.game, j.variant) for j in jobs}
    assert ("guess", "ratio=0.5,T=0.7,seed=1") in labels and ("bar", "T=0,seed=0") in labels
    hot = [j for j in jobs if j.variant.endswith("T=0.7,seed=1")]
    assert {j.llm.temperature for j in hot} == {0.7} and {j.seed for j in hot} == {1}
    assert len({j.key for j in jobs}) == len(jobs)
    with pytest.raises(InputError, match="GAME:KEY=VALUE"):
        parse_vary(["ratio=1/2"])
    assert set(GENERALIZABILITY) == {"guess", "bar", "dollar", "goods", "diner", "auction", "battle", "pirate"}


def test_summary_overall_needs_all_eight_games():
    jobs = bench_jobs(Job(game="guess", players="equilibrium", rounds=3), ["guess", "goods"], 2, {})
    results = [play(j)[-1] for j in jobs]
    (s,) = summarize(results)
    assert s["games"] == {"guess": 100.0, "goods": 100.0} and s["runs"] == {"guess": 2, "goods": 2}
    assert s["overall"] is None
    assert s["by_player"]["goods"] == {"equilibrium": 100.0}
