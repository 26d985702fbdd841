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


def test_bar_matches_issue_form_at_default_and_normalises_otherwise():
    ratios = [0.5, 0.9, 0.6]
    issue = (0.6 - (0.1 + 0.3 + 0.0) / 3) / 0.6 * 100
    assert scoring.bar_score(ratios, 0.6) == pytest.approx(issue)
    # capacity 0.4: max deviation is 0.6; everyone going (1.0) deviates 0.6 -> 0
    assert scoring.bar_score([1.0], 0.4) == pytest.approx(0.0)
    assert scoring.bar_score([0.4, 0.1], 0.4) == pytest.approx((1 - 0.15 / 0.6) * 100)


def test_dollar_equals_issue_per_player_form_and_floors_at_zero():
    totals = [100, 120, 90]
    mine = scoring.dollar_score(totals, 100)
    assert mine == pytest.approx((100 - (0 + 20 + 10) / 3) / 100 * 100)
    issue = max((10 - sum(abs(t / 10 - 10) for t in totals) / 3) / 10 * 100, 0)
    assert mine == pytest.approx(issue)
    assert scoring.dollar_score([350], 100) == 0.0


def test_goods_and_diner():
    assert scoring.goods_score([[0, 20], [10, 10]], 20) == pytest.approx((20 - 10) / 20 * 100)
    assert scoring.diner_score([[True, False], [True, True]]) == pytest.approx(75.0)


def test_auction_clips_overbids_and_skips_zero_values():
    vals = [[100, 200, 0], [50, 40, 10]]
    bids = [[80, 250, 5], [25, 40, 0]]
    # terms: 0.2, 0 (overbid), skip, 0.5, 0, 1.0 -> mean 1.7/5
    assert scoring.auction_score(vals, bids) == pytest.approx(1.7 / 5 * 100)


def test_battle_and_pirate():
    assert scoring.battle_score([True, False, True, True]) == pytest.approx(75.0)
    # D = [0, 40] -> mean 20; A = 3/4 -> 50*(180/200) + 50*0.75 = 45 + 37.5
    assert scoring.pirate_score([0, 40], [True, True, False, True], 100) == pytest.approx(82.5)
    assert scoring.pirate_score([0], [], 100) == pytest.approx(100.0)
