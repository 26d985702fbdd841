"""`gama import`: official run files scored by the project's rules, with every score worked out by hand."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

from tests.gama.official_fixtures import FIXTURES, write_fixtures
from toolkit.core.errors import InputError
from toolkit.gama import Job, game_class, play, summarize
from toolkit.gama.official import import_file, import_folder

# the official files of one model, beside the checkout when present (not part of the project: GPL-3.0)
SHARED = Path(os.environ.get("REASON_GAMA_OFFICIAL", Path(__file__).resolve().parents[2].parent / "shared" /
                             "gama-official")) / "llama-3.1-8b"
PUBLISHED = {"overall": 56.0, "guess": 85.5, "bar": 75.7, "dollar": 56.4, "goods": 19.6, "diner": 59.3,
             "auction": 37.1, "battle": 35.9, "pirate": 78.3}


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    root = write_fixtures(tmp_path_factory.mktemp("raw"))
    return {r["source"]["file"]: r for r in import_folder(root)}


# every score by hand (3 players unless said otherwise)
HAND = {
    # round means 60 and 10 -> 35 -> (100 - 35) / 100
    "guessing_game/tiny_guessing_game_v1_1.json": 65.0,
    # go ratios 1 and 1/3 against 0.6 -> mean deviation 1/3 -> (0.6 - 1/3) / 0.6
    "bar_game/implicit/tiny_bar_game_implicit_v1_1.json": (0.6 - 1 / 3) / 0.6 * 100,
    "bar_game/explicit/tiny_bar_game_explicit_v1_1.json": 0.0,
    # totals 120 and 90 -> mean |total - 100| = 15
    "divide_dollar/tiny_divide_dollar_v1_1.json": 85.0,
    # mean contribution 45 / 6 = 7.5 of 20
    "public_goods/tiny_public_goods_v1_1.json": 62.5,
    # 3 costly orders of 6
    "diner_dilemma/tiny_diner_dilemma_v1_1.json": 50.0,
    # kept shares 0.5, 0 (valuation 0, divided by 1), 0.25, 0.25, 0, 0.5 -> 1.5 / 6
    "sealed_bid_auction/first_price/tiny_sealed_bid_auction_v1_1.json": 25.0,
    # an overbid counts 0, then 0.5 and 0.5
    "sealed_bid_auction/second_price/tiny_sealed_bid_auction_v1_1.json": 100 / 3,
    # seat 0 aims at seat 2 (strongest), seat 1 at seat 0 (not), seat 2 misses on purpose
    "battle_royale/tiny_battle_royale_v1_1.json": 100 / 3,
    # 4 pirates: L1 of (90,0,10,0) from (99,0,1,0) is 18, then 0 -> 9; votes right 2 of 3, then 2 of 2
    "pirate_game/tiny_pirate_game_v1_1.json": 50 * (200 - 9) / 200 + 50 * 4 / 5,
    # 4 golds scaled to 100: (75, 0, 25) against (99, 0, 1) -> L1 48; both votes right
    "pirate_game/tiny_pirate_game_v1_g0.json": 50 * (200 - 48) / 200 + 50,
}


@pytest.mark.parametrize("rel", list(HAND))
def test_each_official_score_by_hand(imported, rel):
    assert imported[rel]["score"] == pytest.approx(HAND[rel])


def test_records_carry_game_params_actions_and_variants(imported):
    bar = imported["bar_game/implicit/tiny_bar_game_implicit_v1_1.json"]
    assert bar["type"] == "gama.result" and bar["game"] == "bar" and bar["players"] == "tiny"
    assert bar["params"] == {"capacity": 0.6, "go_payoff": 10, "home_payoff": 5, "crowded_payoff": 0,
                             "mode": "implicit"}
    assert bar["actions"] == [{"responses": ["go", "go", "go"]}, {"responses": ["go", "stay", "stay"]}]
    assert bar["variant"] == "default" and bar["run"] == 1 and bar["substituted"] == [0, 0, 0]
    # files that follow the official layout to the letter need no normalisation
    assert all(r["normalised"] == [] for r in imported.values())
    variants = {r["variant"] for r in imported.values()}
    assert variants == {"default", "mode=explicit", "price=second", "run=v1_g0"}
    assert imported["pirate_game/tiny_pirate_game_v1_g0.json"]["params"]["golds"] == 4
    # the default rows form one complete leaderboard row: the mean of the eight game scores
    summary = next(s for s in summarize(list(imported.values())) if s["variant"] == "default")
    default = {r["game"]: r["score"] for r in imported.values() if r["variant"] == "default"}
    assert summary["overall"] == pytest.approx(np.mean(list(default.values())))
    assert list(summary["games"]) == ["guess", "bar", "dollar", "goods", "diner", "auction", "battle", "pirate"]


def test_guess_official_scoring_and_bounded_differ_only_when_min_is_not_zero(tmp_path):
    data = json.loads(json.dumps(FIXTURES["guessing_game/tiny_guessing_game_v1_1.json"]))
    data["meta"].update(min=10, max=110)
    path = tmp_path / "x_guessing_game_v1_1.json"
    path.write_text(json.dumps(data))
    # mean 35, S = 25, D = 100: official (110 - 25) / 100, bounded (110 - 35) / 100
    assert import_file(path)["score"] == pytest.approx(85.0)
    assert import_file(path, guess_scoring="bounded")["score"] == pytest.approx(75.0)


def _broken(tmp_path, rel, change):
    data = json.loads(json.dumps(FIXTURES[rel]))
    change(data)
    path = tmp_path / Path(rel).name
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(("rel", "change", "needle"), [
    ("divide_dollar/tiny_divide_dollar_v1_1.json", lambda d: d.pop("round_records"), "missing key 'round_records'"),
    ("divide_dollar/tiny_divide_dollar_v1_1.json", lambda d: d["meta"].update(golds="lots"),
     "meta.golds: expected a int, got 'lots'"),
    ("divide_dollar/tiny_divide_dollar_v1_1.json", lambda d: d["round_records"][1]["responses"].pop(),
     "round_records[1].responses: expected 3 entries, got 2"),
    ("pirate_game/tiny_pirate_game_v1_1.json", lambda d: d["round_records"][1]["gold_distribution"].append(0),
     "round_records[1].gold_distribution: expected 3 entries, got 4"),
    ("battle_royale/tiny_battle_royale_v1_1.json", lambda d: d["round_records"][0].pop("shot_player"),
     "round_records[0].shot_player: missing key"),
    ("divide_dollar/tiny_divide_dollar_v1_1.json", lambda d: d["round_records"][0]["responses"].__setitem__(1, "x"),
     "round_records[0].responses[1]: unreadable value 'x'"),
    ("battle_royale/tiny_battle_royale_v1_1.json", lambda d: d["round_records"][0].update(shot_player="player_x"),
     "round_records[0].shot_player: expected a seat number or null"),
])
def test_bad_files_name_the_file_and_the_key(tmp_path, rel, change, needle):
    path = _broken(tmp_path, rel, change)
    with pytest.raises(InputError) as err:
        import_file(path)
    assert str(err.value).startswith(str(path)) and needle in str(err.value)


def test_unknown_game_and_skip_bad(tmp_path):
    root = write_fixtures(tmp_path, only=["public_goods/tiny_public_goods_v1_1.json"])
    (root / "tiny_chess_v1_1.json").write_text(json.dumps(FIXTURES["public_goods/tiny_public_goods_v1_1.json"]))
    (root / "zz_cut_divide_dollar_v1_1.json").write_text('{"meta": {')
    with pytest.raises(InputError, match="unknown game name in 'tiny_chess_v1_1.json'"):
        list(import_folder(root))
    bad: list[str] = []
    kept = list(import_folder(root, skip_bad=True, on_bad=bad.append))
    assert [r["game"] for r in kept] == ["goods"] and len(bad) == 2
    assert any("zz_cut_divide_dollar_v1_1.json:1: not valid JSON" in b for b in bad)


def test_auction_valuations_are_the_official_draw_in_every_run():
    # round 1 of every official run (seed 42): the same ten valuations for every model
    game = game_class("auction")(10, 2, {}, np.random.default_rng(0))
    assert game.valuations(1) == [200, 30, 0, 80, 70, 160, 20, 110, 10, 100]
    runs = [play(Job(game="auction", players="random", run=r, seed=s, rounds=4)) for r, s in ((0, 0), (1, 9))]
    vals = [[o["outcome"]["valuations"] for o in recs if o["type"] == "gama.round"] for recs in runs]
    assert vals[0] == vals[1] and vals[0][0] != vals[0][1]
    other = game_class("auction")(10, 1, {"seed": 7}, np.random.default_rng(0))
    assert other.valuations(1) != game.valuations(1)


def test_bar_implicit_mode_hides_attendance_from_who_stayed_home():
    outcome = {"round": 1, "go": [True, False, True], "go_count": 2, "crowded": True, "payoffs": [0, 5, 0]}
    implicit = game_class("bar")(3, 1, {}, np.random.default_rng(0))
    explicit = game_class("bar")(3, 1, {"mode": "explicit"}, np.random.default_rng(0))
    assert "2 of 3" in implicit.report(0, outcome) and "2 of 3" not in implicit.report(1, outcome)
    assert implicit.report(1, outcome) == "Round 1 result: You stayed home and got 5 points."
    assert "2 of 3" in explicit.report(1, outcome)
    # a learner that stayed home learns nothing and falls back to the mixed equilibrium
    implicit.history.append(outcome)
    assert implicit._seen(1) == [] and implicit._seen(0) == [outcome]


@pytest.mark.skipif(not SHARED.is_dir(), reason="the official run files are not in ../shared")
def test_published_leaderboard_row_from_the_official_files():
    results = list(import_folder(SHARED))
    assert len(results) == 50
    row = next(s for s in summarize(results) if s["variant"] == "default")
    got = {"overall": row["overall"], **row["games"]}
    assert row["runs"] == dict.fromkeys(PUBLISHED.keys() - {"overall"}, 5)
    for column, published in PUBLISHED.items():
        assert got[column] == pytest.approx(published, abs=0.1), column
