"""`reason sokoban` end to end: pipelines through the real executable and every bad input (exit 2, one line)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from toolkit.sokoban.drc import AgentConfig, DRCAgent, load_agent, save_agent
from toolkit.sokoban.probes import probe_key, save_probes

LEVEL = "; a\n########\n#      #\n# $ .  #\n#  @   #\n#      #\n#      #\n#      #\n########\n\n"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny untrained agent, probes tied to it, and a small level file."""
    root = tmp_path_factory.mktemp("sokoban-cli")
    torch.manual_seed(0)
    save_agent(DRCAgent(AgentConfig(depth=2, ticks=2, channels=4, grid=(6, 6), hidden=16)), root / "agent")
    agent = load_agent(root / "agent")
    rng = np.random.default_rng(0)
    probes = {}
    for concept in ("CA", "CB"):
        for layer in range(2):
            for k in (1, 3):
                f = 4 * k * k
                probes[probe_key(concept, "cell", layer, k)] = (rng.standard_normal((5, f)).astype(np.float32),
                                                                np.zeros(5, np.float32))
    save_probes(probes, root / "probes.safetensors", agent.fingerprint, {})
    save_probes(probes, root / "other.safetensors", "0123456789abcdef", {})
    (root / "levels.txt").write_text(LEVEL)
    return root


def _records(text):
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def test_gen_play_pipeline(reason, tiny):
    gen = reason("sokoban", "gen", "--size", "6", "--n", "6", "--split", "test", "--seed", "3", "--jsonl")
    assert gen.returncode == 0, gen.stderr
    levels = _records(gen.stdout)
    assert len(levels) == 6 and {r["boxes"] for r in levels} == {1, 2}
    assert all(r["type"] == "sokoban.level" for r in levels)
    play = reason("sokoban", "play", "-", "--agent", str(tiny / "agent"), "--think", "0,2", "--cap", "10",
                  input=gen.stdout)
    assert play.returncode == 0, play.stderr
    recs = _records(play.stdout)
    rates = [r for r in recs if r["type"] == "sokoban.solve_rate"]
    assert [r["think"] for r in rates] == [0, 2] and rates[0]["n"] == 6 and rates[0]["mcnemar_p_vs_k0"] == 1.0
    assert sum(r["type"] == "sokoban.episode" for r in recs) == 12
    solved = reason("sokoban", "solve", "-", "--algo", "bfs", input=gen.stdout)
    sols = _records(solved.stdout)
    assert all(s["solved"] and s["moves"] == lv["moves"] for s, lv in zip(sols, levels, strict=True))


def test_ticks_and_intervene(reason, tiny, tmp_path):
    ticks = reason("sokoban", "ticks", str(tiny / "levels.txt"), "--agent", str(tiny / "agent"),
                   "--probes", str(tiny / "probes.safetensors"), "--think", "1", "--bidir")
    assert ticks.returncode == 0, ticks.stderr
    recs = [r for r in _records(ticks.stdout) if r["type"] == "sokoban.plan_f1"]
    assert len(recs) == 2 * 2 * 2 * 2 and all(0 <= r["macro_f1"] <= 1 for r in recs)
    bidir = [r for r in _records(ticks.stdout) if r["type"] == "sokoban.bidirectionality"]
    assert [r["tick"] for r in bidir] == [1, 2, 3]
    shown = _records(reason("sokoban", "show", str(tiny / "levels.txt"), "--agent", str(tiny / "agent"),
                            "--probes", str(tiny / "probes.safetensors"), "--steps", "1").stdout)
    assert [(r["step"], r["tick"]) for r in shown] == [(0, 0), (0, 1)] and len(shown[0]["rows"]) == 6
    agent = load_agent(tiny / "agent")
    case = {"type": "sokoban.case", "schema": 1, "id": "a", "rows": LEVEL.split("\n")[1:9], "checkpoint": [1, 2],
            "old_route": [[2, 2], [1, 2], [1, 1]], "new_route": [[[2, 1], 3], [[1, 1], 1]],
            "agent_hash": agent.fingerprint}
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps({**case, "half": h}) + "\n" for h in ("pick", "test")))
    res = reason("sokoban", "intervene", "--agent", str(tiny / "agent"), "--cases", str(cases),
                 "--probes", str(tiny / "probes.safetensors"), "--alphas", "0.5,1", "--cap", "8")
    assert res.returncode == 0, res.stderr
    summary = [r for r in _records(res.stdout) if r["type"] == "sokoban.intervention_summary"]
    assert len(summary) == 1 and set(summary[0]["success"]) == {"probe", "random", "none"}


BAD_LEVELS = {
    "non-rectangular": "#####\n#@$.#\n####\n",
    "unknown character": "#####\n#@$x#\n#####\n",
    "0 agents": "#####\n# $.#\n#####\n",
    "2 agents": "######\n#@$.@#\n######\n",
    "boxes but": "######\n#@$$.#\n######\n",
    "open border": "#####\n #@$.\n#####\n",
}


@pytest.mark.parametrize("message", list(BAD_LEVELS))
def test_bad_levels(reason, tmp_path, message):
    path = tmp_path / "bad.txt"
    path.write_text("; ok\n#####\n#@$.#\n#####\n\n; b\n" + BAD_LEVELS[message])
    res = reason("sokoban", "solve", str(path))
    assert res.returncode == 2 and message in res.stderr and f"{path}:7" in res.stderr and res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1
    skipped = reason("sokoban", "solve", str(path), "--skip-bad")
    assert skipped.returncode == 0 and len(_records(skipped.stdout)) == 1 and "skipped 1" in skipped.stderr


def _bad(reason, *args, expect: str):
    res = reason(*args)
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert expect in res.stderr and len(res.stderr.strip().splitlines()) == 1 and res.stdout == ""


def test_bad_agent_inputs(reason, tiny, tmp_path):
    lv = str(tiny / "levels.txt")
    (tmp_path / "small.txt").write_text("; s\n#######\n#@$.  #\n#     #\n#     #\n#     #\n#     #\n#######\n\n")
    _bad(reason, "sokoban", "play", str(tmp_path / "small.txt"), "--agent", str(tiny / "agent"), expect="5x5")
    empty = tmp_path / "noconfig"
    empty.mkdir()
    _bad(reason, "sokoban", "play", lv, "--agent", str(empty), expect="without config.json")
    wrong = tmp_path / "wrong"
    save_agent(DRCAgent(AgentConfig(channels=4, grid=(6, 6), hidden=16)), wrong)
    cfg = json.loads((wrong / "config.json").read_text())
    (wrong / "config.json").write_text(json.dumps({**cfg, "channels": 8}))
    _bad(reason, "sokoban", "play", lv, "--agent", str(wrong), expect="shape")
    _bad(reason, "sokoban", "play", lv, "--agent", str(tiny / "agent"), "--think", "-1", expect="--think")
    _bad(reason, "sokoban", "ticks", lv, "--agent", str(tiny / "agent"), "--probes", str(tiny / "other.safetensors"),
         expect="another agent")


def test_bad_options(reason, tiny, tmp_path):
    d = str(tmp_path / "d.safetensors")
    _bad(reason, "sokoban", "probe", "--train", d, "--test", d, "--concept", "CC", "-o", d, expect="--concept CC")
    _bad(reason, "sokoban", "probe", "--train", d, "--test", d, "--kernel", "2", "-o", d, expect="--kernel 2")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    args = ["sokoban", "intervene", "--agent", str(tiny / "agent"), "--probes", str(tiny / "probes.safetensors")]
    _bad(reason, *args, "--cases", str(empty), "--alphas", "1,x", expect="--alphas")
    _bad(reason, *args, "--cases", str(empty), expect="no cases")
