"""The shipped reader on a world it never saw (seed 1003): it reads single facts and follows chains."""

from __future__ import annotations

import pytest

from toolkit.core.assets import asset_path
from toolkit.core.llm import from_uri
from toolkit.rag import index as ix
from toolkit.rag import world
from toolkit.rag.methods import Config, Runner
from toolkit.rag.metrics import accuracy


@pytest.fixture(scope="module")
def setup():
    w = world.generate(1003, per_hop=40, demo_per_hop=1)
    llm = from_uri(f"hf:{asset_path('rag/reader')}?device=cpu&batch_size=40")
    return w, ix.build([d.record() for d in w.docs]), llm


def _acc(answers, qs):
    return sum(accuracy(a["prediction"], q["answers"]) for a, q in zip(answers, qs, strict=True)) / len(qs)


# The shipped reader misses both targets (measured 0.725 for the first, 0.0 vs 0.0 for the second; diagnosis in
# assets/rag/README.md). The targets stay; strict xfail turns into a failure as soon as a reader meets them.
MISSED = pytest.mark.xfail(strict=True,
                           reason="shipped reader under target (0.725; 0.0 vs 0.0); see assets/rag/README.md")


@MISSED
def test_one_hop_with_gold_among_eight_distractors(setup):
    w, idx, llm = setup
    qs = [q.record() for q in w.questions if q.hops == 1 and q.split == "test"][:40]
    answers = Runner(llm, idx).run(qs, Config("rag", 9))
    gold = {q["decomposition"][0]["doc"] for q in qs}
    assert all(set(a["retrieved"]) & gold for a in answers)  # the gold document is among the 9
    assert _acc(answers, qs) >= 0.9


@MISSED
def test_iterdrag_beats_rag_on_three_hops(setup):
    w, idx, llm = setup
    qs = [q.record() for q in w.questions if q.hops == 3 and q.split == "test"][:30]
    it = _acc(Runner(llm, idx).run(qs, Config("iterdrag", 4, 0, 3)), qs)
    rag = _acc(Runner(llm, idx).run(qs, Config("rag", 16)), qs)
    assert it >= rag + 0.25, (it, rag)


def _chain_scores(answers, qs):
    from toolkit.rag.evaluate import score_answers

    return next(s for s in score_answers(answers, {q["id"]: q for q in qs}, "reader") if s["task"] != "all")


def test_one_and_two_hop_chains_ask_one_follow_up_per_hop(setup):
    w, idx, llm = setup
    for hops in (1, 2):
        qs = [q.record() for q in w.questions if q.hops == hops and q.split == "test"][:30]
        s = _chain_scores(Runner(llm, idx).run(qs, Config("iterdrag", 4, 0, 4)), qs)
        assert s["chain_matches_hops"] >= 0.9 and s["calls"] == pytest.approx(2 * hops + 1, abs=0.3), s


@pytest.mark.xfail(strict=True, reason="shipped reader stops one hop early on 3-hop chains: measured 0/30 chains with "
                                       "3 follow-ups, 2.0 follow-ups and 5.0 calls a question (n=4 allowed)")
def test_three_hop_chains_ask_three_follow_ups(setup):
    w, idx, llm = setup
    qs = [q.record() for q in w.questions if q.hops == 3 and q.split == "test"][:30]
    s = _chain_scores(Runner(llm, idx).run(qs, Config("iterdrag", 4, 0, 4)), qs)
    # 3 follow-ups, 3 intermediate answers, 1 final line = 7 calls; n=4 leaves room for a 4th follow-up
    assert s["chain_matches_hops"] >= 0.9 and s["calls"] == pytest.approx(7, abs=0.3), s
