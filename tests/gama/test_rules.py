"""Rules and payoffs of each game on hand-made rounds."""

import numpy as np
import pytest

from tests.gama.helpers import scripted
from toolkit.core.errors import InputError
from toolkit.gama.games import Decision, game_class, parse_params
from toolkit.gama.games.pirate import rational_vote, spe_plan


def test_guess_winner_is_closest_to_ratio_of_mean():
    game, (o,) = scripted("guess", 4, 1, [{0: 10, 1: 20, 2: 30, 3: 60}])
    assert o["mean"] == 30 and o["target"] == pytest.approx(20)
    assert o["winners"] == [1] and o["payoffs"] == [0, 1, 0, 0]
    _, (tie,) = scripted("guess", 2, 1, [{0: 0, 1: 0}])
    assert tie["winners"] == [0, 1]
    assert game.score()["score"] == pytest.approx(70.0)


def test_bar_capacity_is_inclusive():
    _, (ok,) = scripted("bar", 5, 1, [{0: True, 1: True, 2: True, 3: False, 4: False}])
    assert not ok["crowded"] and ok["payoffs"] == [10, 10, 10, 5, 5]
    _, (full,) = scripted("bar", 5, 1, [{0: True, 1: True, 2: True, 3: True, 4: False}])
    assert full["crowded"] and full["payoffs"] == [0, 0, 0, 0, 5]


def test_dollar_all_or_nothing():
    _, (fits,) = scripted("dollar", 3, 1, [{0: 50, 1: 30, 2: 20}])
    assert fits["fits"] and fits["payoffs"] == [50, 30, 20]
    _, (over,) = scripted("dollar", 3, 1, [{0: 50, 1: 30, 2: 21}])
    assert not over["fits"] and over["payoffs"] == [0, 0, 0]


def test_goods_endowment_resets_and_pot_is_shared():
    game, outs = scripted("goods", 4, 2, [{0: 20, 1: 0, 2: 10, 3: 10}, {0: 0, 1: 0, 2: 0, 3: 0}])
    first, second = outs
    assert first["share"] == pytest.approx(40 * 2 / 4)
    assert first["payoffs"] == [20.0, 40.0, 30.0, 30.0]
    assert second["payoffs"] == [20.0] * 4  # fresh 20 tokens each round
    assert game.score()["score"] == pytest.approx((20 - 40 / 8) / 20 * 100)


def test_diner_bill_split():
    _, (o,) = scripted("diner", 4, 1, [{0: True, 1: False, 2: False, 3: False}])
    assert o["bill"] == 50 and o["share"] == pytest.approx(12.5)
    assert o["payoffs"] == [pytest.approx(7.5), pytest.approx(2.5), pytest.approx(2.5), pytest.approx(2.5)]
    assert game_class("diner")(10, 1, {}, np.random.default_rng(0)).costly_dominant()
    assert not game_class("diner")(2, 1, {}, np.random.default_rng(0)).costly_dominant()


def test_auction_first_price_distinct_valuations():
    game, (o,) = scripted("auction", 10, 1, [{i: 10 * i for i in range(10)}], seed=3)
    assert len(set(o["valuations"])) == 10 and all(v % 10 == 0 and 0 <= v <= 200 for v in o["valuations"])
    assert o["winner"] == 9 and o["winning_bid"] == 90
    assert o["payoffs"][9] == o["valuations"][9] - 90 and sum(o["payoffs"]) == o["payoffs"][9]
    with pytest.raises(InputError, match="distinct valuations"):
        game_class("auction")(10, 1, {"vmax": 50}, np.random.default_rng(0))


def test_battle_turn_order_hit_rates_and_elimination():
    game = game_class("battle")(3, 5, {}, np.random.default_rng(0))
    assert [game.hit_rate(s) for s in range(3)] == [0.35, 0.40, 0.45]
    game.rng = type("AlwaysHit", (), {"random": staticmethod(lambda: 0.0)})()
    o1 = game.play_round(1, lambda d: 2)  # seat 0 shoots seat 2 (the strongest) and hits
    assert o1["shooter"] == 0 and o1["at_strongest"] and o1["alive"] == [0, 1]
    o2 = game.play_round(2, lambda d: None)  # seat 1 misses on purpose
    assert o2["shooter"] == 1 and not o2["at_strongest"] and o2["alive"] == [0, 1]
    o3 = game.play_round(3, lambda d: 1)
    assert o3["shooter"] == 0 and game.finished and o3["payoffs"] == [1.0, 0.0, 0.0]
    assert game.score()["score"] == pytest.approx(200 / 3)


def test_pirate_spe_plans_and_votes():
    assert spe_plan(2, 100) == (100, 0)
    assert spe_plan(3, 100) == (99, 0, 1)
    assert spe_plan(5, 100) == (98, 0, 1, 0, 1)
    assert spe_plan(10, 100) == (96, 0, 1, 0, 1, 0, 1, 0, 1, 0)
    assert rational_vote(3, 100, 2, 1) and not rational_vote(3, 100, 1, 0)
    assert not rational_vote(3, 100, 1, 100 - 100)  # pirate 1 would take all after a rejection


def test_pirate_rejection_throws_proposer_overboard_then_accepts():
    plan4 = [70, 10, 10, 10]
    votes = {(i, "vote"): False for i in range(1, 4)}
    game, outs = scripted("pirate", 4, 4, [{(0, "propose"): plan4, **votes},
                                           {(1, "propose"): [99, 0, 1], (2, "vote"): False, (3, "vote"): True}])
    first, second = outs
    assert not first["accepted"] and first["yes"] == 1 and first["l1"] == 29 + 10 + 9 + 10  # spe (99,0,1,0)
    # the official rule: an offer of 2 or more should be accepted, whatever the voter's rank
    assert first["vote_correct"] == {"1": False, "2": False, "3": False}
    # rank 1 offered 0 rejects (right); rank 2 offered 1 at an even rank accepts (right)
    assert second["l1"] == 0 and second["vote_correct"] == {"2": True, "3": True}
    assert second["accepted"] and game.finished and second["payoffs"] == [0, 99, 0, 1]
    s = game.score()["score"]
    assert s == pytest.approx(50 * (200 - 29) / 200 + 50 * 2 / 5)


def test_parameters_are_checked():
    assert parse_params("guess", ["ratio=1/2", "max=50"]) == {"ratio": 0.5, "max": 50}
    assert parse_params("bar", ["capacity=40%"]) == {"capacity": 0.4}
    with pytest.raises(InputError, match="unknown parameter 'capcity'"):
        parse_params("bar", ["capcity=0.4"])
    with pytest.raises(InputError, match="whole number"):
        parse_params("dollar", ["golds=10.5"])
    with pytest.raises(InputError, match="unknown game"):
        parse_params("chess", [])


def test_auction_second_price_and_bids_only_up_to_the_valuation():
    from toolkit.gama.parsing import ParseError

    game, (o,) = scripted("auction", 3, 1, [{0: 50, 1: 30, 2: 10}], params={"price": "second"})
    assert o["winner"] == 0 and o["payment"] == 30 and o["payoffs"][0] == o["valuations"][0] - 30
    d = Decision("bid", 0, 1, {"valuation": 40})
    assert "between 0 and 40" in game.request(d)
    assert game.parse(d, '{"bid": 40}') == 40
    with pytest.raises(ParseError):
        game.parse(d, '{"bid": 41}')


def test_pirate_golds_below_the_votes_needed_are_refused():
    assert game_class("pirate")(10, 5, {"golds": 4}, np.random.default_rng(0)).p["golds"] == 4
    with pytest.raises(InputError, match="at least 4 for 10 players"):
        game_class("pirate")(10, 5, {"golds": 3}, np.random.default_rng(0))
