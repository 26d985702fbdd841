"""`gama import` reads what the official analysis tolerates, the official way, and says so in `normalised`.

Each file below is a small hand-made run in the official layout with one shape the official code
accepts and a strict reader would refuse; every score is worked out by hand from the official
`compute_score` of the game.
"""

import json
from pathlib import Path

import pytest

from tests.gama.official_fixtures import FIXTURES, run_file
from toolkit.gama import summarize
from toolkit.gama.official import describe_normalised, import_file, import_folder
from toolkit.gama.report import few_runs_note, leaderboard_table

PLAYERS_3 = [["player_0", 35], ["player_1", 40], ["player_2", 45]]


def write(root: Path, rel: str, data: dict) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))
    return path


def shot(shooter: str, target: str, out: bool, alive: list, action: str = "shoot") -> dict:
    return {"responses": [target], "player_shooting": shooter, "initial_players": alive, "shot_player": target,
            "action": action, "out": out}


def test_pirate_file_without_gold_takes_the_official_default(tmp_path):
    data = json.loads(json.dumps(FIXTURES["pirate_game/tiny_pirate_game_v1_1.json"]))
    del data["meta"]["gold"]
    rec = import_file(write(tmp_path, "pirate_game/tiny_pirate_game_v1_1.json", data))
    # the same score as the file with gold 100 (test_official: L1 18 then 0, votes right 4 of 5)
    assert rec["score"] == pytest.approx(50 * (200 - 9) / 200 + 50 * 4 / 5)
    assert rec["params"]["golds"] == 100
    assert rec["normalised"] == ["meta: 'gold' missing; the official default 100"]


def test_battle_shots_at_players_out_or_at_oneself_are_turns_not_aimed_at_the_strongest(tmp_path):
    after = PLAYERS_3[:2]
    rec = import_file(write(tmp_path, "battle_royale/tiny_battle_royale_v1_1.json", run_file(
        {"base_hit_rate": 35, "interval": 5},
        [shot("0", "2", True, PLAYERS_3),      # at the strongest, who goes out
         shot("1", "2", False, after),         # at player_2, already out
         shot("0", "0", False, after),         # at itself
         shot("1", "-1", False, after, "miss"),  # an intentional miss, written the official way
         shot("0", "1", False, after)])))      # at the strongest left
    # official analysis: 2 turns aimed at the strongest of 5
    assert rec["score"] == pytest.approx(40.0) and rec["rounds_played"] == 5
    kinds = [n.split(":")[0] for n in rec["normalised"]]
    assert kinds == ["shot", "shot"]
    assert "player_1 shot at player_2, who is already out" in rec["normalised"][0]
    assert "player_0 shot at itself" in rec["normalised"][1]


def test_battle_a_hit_on_oneself_puts_the_shooter_out_as_the_official_game_does(tmp_path):
    rec = import_file(write(tmp_path, "battle_royale/tiny_battle_royale_v1_2.json", run_file(
        {"base_hit_rate": 35, "interval": 5},
        [shot("0", "0", True, PLAYERS_3), shot("1", "2", False, PLAYERS_3[1:])])))
    assert rec["trajectory"]["alive"] == [2, 2] and rec["score"] == pytest.approx(50.0)
    assert "the hit puts it out" in rec["normalised"][0]


def test_diner_counts_only_cheap_as_cheap_like_the_official_count(tmp_path):
    rec = import_file(write(tmp_path, "diner_dilemma/tiny_diner_dilemma_v1_1.json", run_file(
        {"cheap_cost": 10, "cheap_utility": 15, "exp_cost": 20, "exp_utility": 20},
        [{"responses": ["costly_dish", "cheap", "cheap_dish"], "cheap_player": 1},
         {"responses": ["expensive", "cheap", "costly"], "cheap_player": 1}])))
    # responses.count('cheap') is 1 per round: 4 costly orders of 6 ('cheap_dish' too)
    assert rec["score"] == pytest.approx(400 / 6)
    assert rec["normalised"] == [
        "answers: 'cheap_dish' x1 counted as costly (the official score counts only 'cheap' as cheap)",
        "answers: 'costly_dish' x1 counted as costly (the official score counts only 'cheap' as cheap)",
        "answers: 'expensive' x1 counted as costly (the official score counts only 'cheap' as cheap)"]


def test_bar_counts_only_go_as_going(tmp_path):
    rec = import_file(write(tmp_path, "bar_game_implicit/tiny_bar_game_implicit_v1_1.json", run_file(
        {"min": 0, "max": 10, "home": 5, "ratio": 0.6, "ratio_str": "60%", "mode": "implicit"},
        [{"responses": ["go", "went", "stay"]}, {"responses": ["go", "go", "go"]}])))
    # go ratios 1/3 and 1: deviations 0.2667 and 0.4 from 0.6 -> (0.6 - 1/3) / 0.6
    assert rec["score"] == pytest.approx((0.6 - 1 / 3) / 0.6 * 100)
    assert rec["normalised"] == ["answers: 'went' x1 counted as stay (the official score counts only 'go' as go)"]


def test_pirate_vote_that_is_neither_accept_nor_reject_is_no_yes_and_never_right(tmp_path):
    rec = import_file(write(tmp_path, "pirate_game/tiny_pirate_game_v1_1.json", run_file(
        {"gold": 100},
        [{"gold_distribution": [98, 0, 1, 1], "responses": ["accept", "maybe", "reject", "reject"]},
         {"gold_distribution": [99, 0, 1], "responses": ["accept", "reject", "accept"]}], n=4)))
    # 'maybe' is not a yes, so the first plan fails (1 of 4) and the second is played
    assert rec["rounds_played"] == 2
    # L1 2 then 0; votes right 0 of 3 ('maybe' to an offer of 0 is wrong), then 2 of 2
    assert rec["score"] == pytest.approx(50 * (200 - 1) / 200 + 50 * 2 / 5)
    assert rec["normalised"][0].startswith("answers: 'maybe' x1 read as neither accept nor reject")


def test_generalizability_runs_with_ratio_zero_import(tmp_path):
    guess = import_file(write(tmp_path, "guessing_game/tiny_guessing_game_v1_r0.json", run_file(
        {"min": 0, "max": 100, "ratio": 0, "ratio_str": "0"}, [{"responses": [0, 10, 20]}])))
    goods = import_file(write(tmp_path, "public_goods/tiny_public_goods_v1_r0.json", run_file(
        {"tokens": 20, "ratio": 0}, [{"responses": [0, 0, 10]}])))
    assert guess["score"] == pytest.approx(90.0) and guess["variant"] == "run=v1_r0"
    assert goods["score"] == pytest.approx((20 - 10 / 3) / 20 * 100)


def test_missing_meta_keys_take_the_official_constructor_defaults(tmp_path):
    rec = import_file(write(tmp_path, "sealed_bid_auction/tiny_sealed_bid_auction_v1_1.json", run_file(
        {}, [{"responses": [50, 0, 60], "valuations": [100, 0, 80], "bid_winner": "player_2"}])))
    assert rec["params"]["price"] == "first" and rec["params"]["vmax"] == 200 and rec["params"]["step"] == 10
    assert rec["score"] == pytest.approx((0.5 + 0 + 0.25) / 3 * 100)
    assert {n.split("'")[1] for n in rec["normalised"]} == {"mode", "valuation_min", "valuation_max", "interval"}


def _unnamed(root: Path, models: dict[str, str | None]) -> Path:
    """One divide-the-dollar run per entry: file name -> meta.models (None: the key is left out)."""
    for name, model in models.items():
        meta = {"golds": 100, **({"models": model} if model else {})}
        write(root, f"divide_dollar/{name}", run_file(meta, [{"responses": [30, 30, 40]}]))
    return root


def test_files_that_name_no_model_take_the_one_the_other_files_name(tmp_path):
    root = _unnamed(tmp_path / "raw", {"divide_dollar_v1_1.json": None, "divide_dollar_v1_2.json": "tiny-gpt"})
    recs = list(import_folder(root))
    assert [r["players"] for r in recs] == ["tiny-gpt", "tiny-gpt"]
    assert len(summarize(recs)) == 1  # one row, not one per naming
    assert recs[0]["normalised"][0].startswith("model: the file names no model") and recs[1]["normalised"] == []
    named = list(import_folder(root, model="my-model"))
    assert [r["players"] for r in named] == ["my-model", "tiny-gpt"]


def test_model_from_the_folder_name_or_unknown_with_a_warning(tmp_path):
    alone = _unnamed(tmp_path / "gpt-x", {"divide_dollar_v1_1.json": None})
    assert next(import_folder(alone))["players"] == "gpt-x"
    mixed = _unnamed(tmp_path / "raw", {"divide_dollar_v1_1.json": None, "a_divide_dollar_v1_1.json": None,
                                        "b_divide_dollar_v1_1.json": None})
    warnings: list[str] = []
    recs = list(import_folder(mixed, on_warning=warnings.append))
    assert sorted(r["players"] for r in recs) == ["a", "b", "unknown"]
    assert len(warnings) == 1 and "--model NAME" in warnings[0]
    assert list(import_folder(mixed, on_warning=warnings.append, model="c"))[2]["players"] == "c"


def test_stderr_count_and_report_runs_per_game(tmp_path):
    root = _unnamed(tmp_path / "raw", {f"tiny_divide_dollar_v1_{i}.json": None for i in range(1, 4)})
    write(root, "diner_dilemma/tiny_diner_dilemma_v1_1.json", run_file(
        {"cheap_cost": 10, "cheap_utility": 15, "exp_cost": 20}, [{"responses": ["cheap", "costly_dish", "cheap"]}]))
    recs = list(import_folder(root))
    note = describe_normalised(recs)
    assert note.startswith("normalised 2 value(s) in 1 of 4 run(s)") and "answers 1, meta 1" in note
    summaries = summarize(recs)
    assert summaries[0]["runs"] == {"dollar": 3, "diner": 1} and summaries[0]["normalised_runs"] == 1
    warning = few_runs_note(summaries)
    assert "fewer runs than the official 5" in warning and "Dollar 3, Diner 1" in warning
    # the table shows the runs behind each score
    from rich.console import Console

    console = Console(width=200, record=True)
    console.print(leaderboard_table(summaries))
    text = console.export_text()
    assert "runs/game" in text and "1-3" in text and "(1)" in text
    six = summarize([r for r in recs if r["game"] == "dollar"] * 2)
    assert six[0]["runs"] == {"dollar": 6} and few_runs_note(six) is None
