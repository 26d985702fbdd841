"""Interventions: the official protocol (NEVER writes all episode, direction writes until the agent enters the new
route), the first-push option, the official random control's scaling, and the pick/test sweep."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from toolkit.sokoban.drc import AgentConfig, DRCAgent
from toolkit.sokoban.interventions import deltas, random_probe, run_cases, sweep
from toolkit.sokoban.levels import parse_text

# player (0,0), box (2,2), target (4,0): the script walks down, right, right, pushes the box down, walks left
LEVEL = "; s\n########\n#@     #\n#      #\n#  $   #\n#      #\n#.     #\n#      #\n########\n\n"
SCRIPT = [2, 4, 4, 2, 3, 3, 0, 0]
CASE = {"id": "s", "checkpoint": [0, 1], "old_route": [[0, 0], [0, 1], [0, 2]],
        "new_route": [[[1, 0], 2], [[1, 1], 4]]}


class _Scripted:
    """The agent, its actions replaced by SCRIPT; records what the hook adds to a zero cell state every step."""

    def __init__(self, agent):
        self.agent, self.cfg, self.added = agent, agent.cfg, []

    def initial_state(self, n):
        return self.agent.initial_state(n)

    def __call__(self, obs, state, hook=None, trace=None, ticks=None):
        zero = torch.zeros(obs.shape[0], self.cfg.channels, *self.cfg.grid)
        self.added.append(hook(0, 0, zero)[0].clone())
        _, value, state = self.agent(obs, state, hook=hook, trace=trace)
        logits = torch.full((obs.shape[0], 5), -1e9)
        logits[:, SCRIPT[len(self.added) - 1]] = 0.0
        return logits, value, state


@pytest.fixture
def agent():
    torch.manual_seed(0)
    return DRCAgent(AgentConfig(depth=1, ticks=1, channels=4, grid=(6, 6), hidden=16)).eval()


def _case():
    return {**CASE, "rows": parse_text(LEVEL, "s")[0].rows()}


def _weight():
    return np.arange(1, 21, dtype=np.float32).reshape(5, 4)  # row k = 4k+1 .. 4k+4


def _written(agent, protocol):
    scripted = _Scripted(agent)
    (res,) = run_cases(scripted, [_case()], _weight(), 0, 1.0, cap=len(SCRIPT), protocol=protocol)
    # per step: (NEVER written at old square (0,2)?, a direction written at new square (1,0)?)
    return [(bool(a[:, 0, 2].any()), bool(a[:, 1, 0].any())) for a in scripted.added], res


def test_official_protocol_keeps_never_and_stops_directions_on_the_new_route(agent):
    written, res = _written(agent, "official")
    assert res["steps"] == len(SCRIPT) and res["visited_checkpoint"] is False
    # step 0: the agent stands at (0,0); from step 1 on it has entered the new route (1,0): NEVER only, to the end
    assert written == [(True, True)] + [(True, False)] * (len(SCRIPT) - 1)


def test_first_push_protocol_stops_every_write_at_the_push(agent):
    written, _ = _written(agent, "first-push")
    assert written == [(True, True)] * 4 + [(False, False)] * (len(SCRIPT) - 4)  # the push is the 4th action


def test_written_vectors_are_the_probe_rows(agent):
    never, route = deltas([_case()], _weight(), agent, 0, 2.0)
    assert torch.equal(never[0, 0, :, 0, 2], torch.tensor(2 * _weight()[0]))  # NEVER at the old route's (0,2)
    assert torch.equal(route[0, 0, :, 1, 1], torch.tensor(2 * _weight()[4]))  # RIGHT entering (1,1)
    assert torch.equal(never[0, 0, :, 0, 1], torch.tensor(2 * _weight()[0]))


def test_official_random_control_is_a_rescaled_random_probe(agent):
    w = _weight()
    rand = random_probe(w, seed=3)
    assert rand.shape == w.shape and np.isclose(np.linalg.norm(rand), np.linalg.norm(w), rtol=1e-5)
    assert np.array_equal(rand, random_probe(w, seed=3)) and not np.array_equal(rand, random_probe(w, seed=4))
    never, _ = deltas([_case()], w, agent, 0, 1.0, arm="random", seed=3)
    # one random row per class: the same vector at both NEVER squares (the official control)
    assert torch.equal(never[0, 0, :, 0, 1], never[0, 0, :, 0, 2])
    assert torch.allclose(never[0, 0, :, 0, 1], torch.tensor(rand[0]))
    per_square, _ = deltas([_case()], w, agent, 0, 1.0, arm="random-per-square", seed=3)
    a, b = per_square[0, 0, :, 0, 1], per_square[0, 0, :, 0, 2]
    assert not torch.equal(a, b) and np.isclose(float(a.norm()), float(np.linalg.norm(w[0])), rtol=1e-5)


def test_sweep_picks_on_one_half_and_reports_the_controls(agent):
    cases = [_case(), {**_case(), "id": "t"}]
    rows = list(sweep(agent, cases[:1], cases[1:], {0: _weight()}, [0.5, 1.0], ["random"], seed=0, cap=10))
    kinds = [k for k, _ in rows]
    assert kinds == ["sweep", "sweep", "case", "case", "summary"]
    summary = rows[-1][1]
    assert summary["protocol"] == "official" and summary["alpha"] in (0.5, 1.0) and summary["layer"] == 0
    assert set(summary["success"]) == {"probe", "random", "none"}
    assert [r["control"] for k, r in rows if k == "case"] == ["probe", "random"]
