"""Small hand-written run files in the official GAMABench raw_results format (meta, round_records, player_data).

Three players and two or three rounds each, so every score can be worked out by hand in the tests.
"""

import json
from pathlib import Path


def players(n: int) -> list[dict]:
    return [{"model": "tiny", "id": f"player_{i}", "prompt": [], "records": [], "utility": []} for i in range(n)]


def run_file(meta: dict, rounds: list[dict], n: int = 3) -> dict:
    return {"meta": {"player_num": n, **meta}, "round_records": rounds, "player_data": players(n)}


FIXTURES = {
    "guessing_game/tiny_guessing_game_v1_1.json": run_file(
        {"min": 0, "max": 100, "ratio": 2 / 3, "ratio_str": "2/3"},
        [{"responses": [30, 60, 90]}, {"responses": [10, 20, 0]}]),
    "bar_game/implicit/tiny_bar_game_implicit_v1_1.json": run_file(
        {"min": 0, "max": 10, "home": 5, "ratio": 0.6, "mode": "implicit"},
        [{"responses": ["go", "go", "go"]}, {"responses": ["go", "stay", "stay"]}]),
    "bar_game/explicit/tiny_bar_game_explicit_v1_1.json": run_file(
        {"min": 0, "max": 10, "home": 5, "ratio": 0.6, "mode": "explicit"},
        [{"responses": ["stay", "stay", "stay"]}]),
    "divide_dollar/tiny_divide_dollar_v1_1.json": run_file(
        {"golds": 100}, [{"responses": [50, 50, 20]}, {"responses": [30, 30, 30]}]),
    "public_goods/tiny_public_goods_v1_1.json": run_file(
        {"tokens": 20, "ratio": 2}, [{"responses": [0, 10, 20]}, {"responses": [5, 5, 5]}]),
    "diner_dilemma/tiny_diner_dilemma_v1_1.json": run_file(
        {"cheap_cost": 10, "cheap_utility": 15, "exp_cost": 20, "exp_utility": 20},
        [{"responses": ["costly", "cheap", "cheap"]}, {"responses": ["costly", "costly", "cheap"]}]),
    "sealed_bid_auction/first_price/tiny_sealed_bid_auction_v1_1.json": run_file(
        {"valuation_min": 0, "valuation_max": 200, "interval": 10, "seed": 44, "mode": "highest bid"},
        [{"responses": [50, 0, 60], "valuations": [100, 0, 80], "bid_winner": "player_2"},
         {"responses": [150, 40, 10], "valuations": [200, 40, 20], "bid_winner": "player_0"}]),
    "sealed_bid_auction/second_price/tiny_sealed_bid_auction_v1_1.json": run_file(
        {"valuation_min": 0, "valuation_max": 200, "interval": 10, "seed": 43, "mode": "second highest bid"},
        [{"responses": [120, 10, 30], "valuations": [100, 20, 60], "bid_winner": "player_0"}]),
    "battle_royale/tiny_battle_royale_v1_1.json": run_file(
        {"base_hit_rate": 35, "interval": 5},
        [{"player_shooting": "0", "initial_players": [["player_0", 35], ["player_1", 40], ["player_2", 45]],
          "shot_player": "2", "out": False},
         {"player_shooting": "1", "initial_players": [["player_0", 35], ["player_1", 40], ["player_2", 45]],
          "shot_player": "0", "out": True},
         {"player_shooting": "2", "initial_players": [["player_1", 40], ["player_2", 45]],
          "shot_player": "null", "out": False}]),
    "pirate_game/tiny_pirate_game_v1_1.json": run_file(
        {"gold": 100},
        [{"gold_distribution": [90, 0, 10, 0], "responses": ["accept", "reject", "reject", "reject"]},
         {"gold_distribution": [99, 0, 1], "responses": ["accept", "reject", "accept"]}], n=4),
    "pirate_game/tiny_pirate_game_v1_g0.json": run_file(
        {"gold": 4}, [{"gold_distribution": [3, 0, 1], "responses": ["accept", "reject", "accept"]}]),
}


def write_fixtures(root: Path, only: list[str] | None = None) -> Path:
    for rel, data in FIXTURES.items():
        if only is None or rel in only:
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data, indent=1))
    return root
