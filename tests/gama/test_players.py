"""Built-in players: seat specs, equilibrium scores the formulas predict, learners, determinism."""

import numpy as np
import pytest
from scipy.stats import binom

from toolkit.core.errors import InputError
from toolkit.gama import Job, game_class, parse_players, play
from toolkit.gama.games import Decision


def result(game, players, **kw):
    return play(Job(game=game, players=players, **kw))[-1]


def test_player_specs():
    assert parse_players("equilibrium", 3) == ["equilibrium"] * 3
    assert parse_players("llm*2,br", 4) == ["llm", "llm", "best-response", "best-response"]
    assert parse_players("random*1,fp*2", 3) == ["random", "fictitious", "fictitious"]
    for bad, msg in [("random*2", "add up to 2"), ("chess", "unknown player"), ("random,fp", "at most one"),
                     ("random*x", "whole number"), ("random*5,fp", "already fill")]:
        with pytest.raises(InputError, match=msg):
            parse_players(bad, 5 if "5" in bad else 3)


@pytest.mark.parametrize("game", ["guess", "bar", "dollar", "goods", "diner", "battle", "pirate"])
def test_equilibrium_players_score_100(game):
    r = result(game, "equilibrium", seed=4)
    assert r["score"] == pytest.approx(100.0)


@pytest.mark.parametrize("ratio", ["1/2", "1", "4/3"])
def test_guess_equilibrium_scores_100_for_any_ratio(ratio):
    from toolkit.gama import parse_params

    assert result("guess", "equilibrium", rounds=3, params=parse_params("guess", [f"ratio={ratio}"]))["score"] == 100


@pytest.mark.parametrize(("golds", "expected"), [(100, 100.0), (20, 92.0), (5, 62.0), (4, 52.0), (1000, 98.2)])
def test_pirate_equilibrium_with_other_golds(golds, expected):
    # the score compares the plan scaled to 100 golds with the 100-gold plan: the proposer keeps G - 4 and
    # four pirates get 1, so L1 = 2 * 4 * |1 - 100/G| and the score 100 - L1/4 (every vote right)
    assert result("pirate", "equilibrium", params={"golds": golds})["score"] == pytest.approx(expected)


def test_auction_equilibrium_keeps_one_nth_of_value():
    # official valuations: 11 of the 200 seat-rounds have valuation 0 and add 0 -> 10 * 189/200
    assert result("auction", "equilibrium")["score"] == pytest.approx(9.45)
    # second price: bidding the valuation is dominant and keeps nothing
    assert result("auction", "equilibrium", params={"price": "second"}, rounds=3)["score"] == 0.0
    # bid (N-1)/N v exactly when v is a multiple of N: kept share 1/N -> score 100/N
    r = result("auction", "equilibrium", n_players=10, params={"step": 10, "vmin": 10})
    assert r["score"] == pytest.approx(10.0)
    r5 = result("auction", "equilibrium", n_players=5, params={"step": 5, "vmin": 5, "vmax": 100})
    assert r5["score"] == pytest.approx(20.0)


def test_bar_mixed_equilibrium_matches_expected_score():
    bar = game_class("bar")(10, 200, {}, np.random.default_rng(0))
    p = bar.equilibrium_probability()
    # indifference: 10 * P(at most 5 of the 9 others go) = 5
    assert 10 * binom.cdf(5, 9, p) == pytest.approx(5.0, abs=1e-9)
    k = np.arange(11)
    expected = 100 * (1 - np.sum(binom.pmf(k, 10, p) * np.abs(k / 10 - 0.6)) / 0.6)
    rngs = [np.random.default_rng(s) for s in range(10)]
    for r in range(1, 201):
        bar.play_round(r, lambda d: bar.mixed(rngs[d.seat]))
    assert bar.score()["score"] == pytest.approx(expected, abs=3.0)
    # the pure equilibrium: exactly floor(0.6 x 10) = 6 go
    assert [bar.strategy_equilibrium(Decision("go", s, 1), None) for s in range(10)] == [True] * 6 + [False] * 4


def test_learners_converge_where_theory_says():
    # best response to the last average drives guesses down by the ratio each round
    traj = result("guess", "best-response", rounds=12)["trajectory"]["mean"]
    assert traj[:4] == [33, 22, 15, 10] and traj[-1] <= 1
    # divide the dollar: after round 1 each claims G minus the others' claims -> total G
    totals = result("dollar", "best-response", rounds=4)["trajectory"]["total"]
    assert totals == [100, 100, 100, 100]
    r = result("dollar", "random", rounds=10)
    assert r["score"] < 50
    # fictitious bidders shade less than equilibrium bidders against the same history
    fp = result("auction", "fictitious", rounds=20, seed=1)["score"]
    assert 0 < fp < 60


def test_mixed_table_reports_per_player_scores():
    r = result("goods", "random*4,equilibrium", seed=2)
    assert r["by_player"]["equilibrium"] == pytest.approx(100.0)
    assert r["by_player"]["random"] < 80
    assert r["seats"][:4] == ["random"] * 4


def test_same_seed_same_records_and_seed_changes_them():
    a = play(Job(game="battle", players="random", seed=7))
    b = play(Job(game="battle", players="random", seed=7))
    c = play(Job(game="battle", players="random", seed=8))
    assert a == b and a != c


def test_runs_with_torch_unavailable():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    # a finder that refuses the imports, as when the packages are absent (a None in sys.modules would
    # instead look like a broken installed torch to libraries that probe for it, such as scipy)
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('torch', 'transformers'):\n"
            "            raise ImportError(name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "sys.argv = ['reason', '--quiet', 'gama', 'bench', '--players', 'llm*2,fictitious', '-n', '4',"
            " '--rounds', '2', '--runs', '1', '--no-rounds', '--llm', 'py:toolkit.gama.standin:respond']\n"
            "from cli.main import main\nmain()")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                         env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert '"type": "gama.summary"' in out.stdout.splitlines()[-1]
