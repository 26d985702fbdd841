"""Each score formula against numbers computed by hand."""

import pytest

from toolkit.gama import scoring


def test_guess_uses_mean_of_round_averages():
    # round averages 30 and 10 -> mean 20 -> (100 - 20)/100 * 100 = 80
    assert scoring.guess_score([[20, 40], [0, 20]], 0, 100, 2 / 3) == pytest.approx(80.0)
    # range 50..150: (150 - 70)/100 = 80
    assert scoring.guess_score([[70]], 50, 150, 0.5) == pytest.approx(80.0)
    # ratio > 1: equilibrium is MAX, score (mean - MIN)/D; ratio = 1: 1 - |2S - D|/D
    assert scoring.guess_score([[100]], 0, 100, 4 / 3) == pytest.approx(100.0)
    assert scoring.guess_score([[80]], 50, 150, 1.5) == pytest.approx(30.0)
    assert scoring.guess_score([[50]], 0, 100, 1) == pytest.approx(100.0)
    assert scoring.guess_score([[75]], 0, 100, 1) == pytest.approx(50.0)


def test_bar_matches_paper_form_at_default_and_normalises_otherwise():
    ratios = [0.5, 0.9, 0.6]
    paper = (0.6 - (0.1 + 0.3 + 0.0) / 3) / 0.6 * 100
    assert scoring.bar_score(ratios, 0.6) == pytest.approx(paper)
    # capacity 0.4: max deviation is 0.6; everyone going (1.0) deviates 0.6 -> 0
    assert scoring.bar_score([1.0], 0.4) == pytest.approx(0.0)
    assert scoring.bar_score([0.4, 0.1], 0.4) == pytest.approx((1 - 0.15 / 0.6) * 100)


def test_dollar_equals_paper_per_player_form_and_floors_at_zero():
    totals = [100, 120, 90]
    mine = scoring.dollar_score(totals, 100)
    assert mine == pytest.approx((100 - (0 + 20 + 10) / 3) / 100 * 100)
    paper = max((10 - sum(abs(t / 10 - 10) for t in totals) / 3) / 10 * 100, 0)
    assert mine == pytest.approx(paper)
    assert scoring.dollar_score([350], 100) == 0.0


def test_goods_and_diner():
    assert scoring.goods_score([[0, 20], [10, 10]], 20) == pytest.approx((20 - 10) / 20 * 100)
    assert scoring.diner_score([[True, False], [True, True]]) == pytest.approx(75.0)


def test_auction_clips_overbids_and_divides_zero_values_by_one():
    vals = [[100, 200, 0], [50, 40, 10]]
    bids = [[80, 250, 5], [25, 40, 0]]
    # terms: 0.2, 0 (overbid), 0 (v = 0: (0 - 5)/1 clipped), 0.5, 0, 1.0 -> mean 1.7/6
    assert scoring.auction_score(vals, bids) == pytest.approx(1.7 / 6 * 100)
    # a zero valuation with a zero bid also adds 0: everyone at 0.9 v over 20 values, one of them 0
    vals = [[10 * i for i in range(20)]]
    assert scoring.auction_score(vals, [[0.9 * v for v in vals[0]]]) == pytest.approx(10 * 19 / 20)


def test_battle_and_pirate():
    assert scoring.battle_score([True, False, True, True]) == pytest.approx(75.0)
    # D = [0, 40] -> mean 20; A = 3/4 -> 50*(180/200) + 50*0.75 = 45 + 37.5
    assert scoring.pirate_score([0, 40], [True, True, False, True]) == pytest.approx(82.5)
    # a vote with no correct answer (None) counts as wrong
    assert scoring.pirate_score([0], [True, None]) == pytest.approx(75.0)
    assert scoring.pirate_score([0], []) == pytest.approx(100.0)
    # proposals are scaled to 100 golds: 20 golds split (16, 0, 4) -> (80, 0, 20) against (99, 0, 1)
    assert scoring.pirate_l1([16, 0, 4], 20, [99, 0, 1]) == pytest.approx(19 + 19)


def test_pirate_official_vote_table():
    # ranks below the proposer 1-10, offers 0-3: A accept, R reject, - no correct vote
    table = {1: "R-AA", 2: "RAAA", 3: "R-AA", 4: "RAAA", 5: "R-AA", 6: "RAAA", 7: "R-AA", 8: "RAAA", 9: "R-AA",
             10: "RAAA"}
    for rank, row in table.items():
        for offer, want in enumerate(row):
            assert scoring.pirate_vote(rank, offer) == {"A": True, "R": False, "-": None}[want], (rank, offer)


def test_guess_official_scoring_can_exceed_100():
    # MIN 50, MAX 150, everyone at 50: bounded (150 - 50)/100 = 100; official (150 - 0)/100 = 150
    assert scoring.guess_score([[50, 50]], 50, 150, 0.5) == pytest.approx(100.0)
    assert scoring.guess_score([[50, 50]], 50, 150, 0.5, "official") == pytest.approx(150.0)
    # with MIN = 0 both agree
    assert scoring.guess_score([[30]], 0, 100, 2 / 3, "official") == scoring.guess_score([[30]], 0, 100, 2 / 3)
