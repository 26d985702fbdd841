"""DRC ticks: D x N cell updates per env step; `free` thinking runs forward passes without env steps."""

from __future__ import annotations

import numpy as np
import torch

from toolkit.sokoban.drc import AgentConfig, DRCAgent, load_agent, save_agent
from toolkit.sokoban.rollout import rollout


def _agent(depth=2, ticks=3):
    torch.manual_seed(0)
    return DRCAgent(AgentConfig(depth=depth, ticks=ticks, channels=4, grid=(6, 6), hidden=16)).eval()


def test_d_times_n_cell_updates_per_step():
    agent = _agent()
    calls = []
    obs = torch.zeros(2, 7, 6, 6)
    obs[:, 1] = 1
    trace = []
    logits, value, state = agent(obs, agent.initial_state(2), hook=lambda t, d, c: calls.append((t, d)) or c,
                                 trace=trace)
    assert calls == [(t, d) for t in range(3) for d in range(2)]
    assert len(trace) == 3 and logits.shape == (2, 5) and value.shape == (2,) and state.shape == (2, 2, 2, 4, 6, 6)
    assert torch.equal(trace[-1], state)


def test_cell_equations_by_hand():
    """One tick of one layer written out from the equations matches the module."""
    agent = _agent(depth=1, ticks=1)
    cell = agent.cells[0]
    x, h, c = torch.randn(1, 4, 6, 6), torch.randn(1, 4, 6, 6), torch.randn(1, 4, 6, 6)
    pooled = torch.stack([h.mean((2, 3)), h.amax((2, 3))], 2)  # (1, C, 2)
    inject = (pooled * cell.pool.conv.weight[:, 0, :, 0]).sum(-1) + cell.pool.conv.bias
    inp = torch.cat([x, h, h, inject[:, :, None, None].expand(1, 4, 6, 6)], 1)
    gates = torch.nn.functional.conv2d(inp, cell.main.weight, cell.main.bias, padding=1)
    i, f, o, g = gates.chunk(4, 1)
    c_new = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    h_new, c_out = cell(x, h, h, c)
    assert torch.allclose(c_out, c_new, atol=1e-5)
    assert torch.allclose(h_new, torch.sigmoid(o) * torch.tanh(c_new), atol=1e-5)


def test_free_thinking_never_steps_env(gen_levels, monkeypatch):
    from toolkit.sokoban import env as env_mod

    agent = _agent()
    levels = [lv for lv, _, _ in gen_levels[:4]]
    counts = {"steps": 0}
    real = env_mod.BatchEnv.step

    def counting(self, actions, auto_reset=True):
        counts["steps"] += 1
        return real(self, actions, auto_reset)

    monkeypatch.setattr(env_mod.BatchEnv, "step", counting)
    plain = rollout(agent, levels, 0, cap=20)
    n0 = counts["steps"]
    counts["steps"] = 0
    free = rollout(agent, levels, 3, "free", cap=20)
    assert counts["steps"] == max(e.steps for e in free)
    counts["steps"] = 0
    noop = rollout(agent, levels, 3, "noop", cap=20)
    assert all(e.actions[:3] == [0, 0, 0] for e in noop)
    assert n0 == max(e.steps for e in plain)


@torch.no_grad()
def test_save_load_round_trip(tmp_path):
    agent = _agent()
    save_agent(agent, tmp_path / "a")
    again = load_agent(tmp_path / "a")
    obs = torch.rand(3, 7, 6, 6)
    a = agent(obs, agent.initial_state(3))[0]
    b = again(obs, again.initial_state(3))[0]
    assert torch.allclose(a, b, atol=5e-2)  # float16 storage
    save_agent(again, tmp_path / "b")
    assert (tmp_path / "a" / "model.safetensors").read_bytes() == (tmp_path / "b" / "model.safetensors").read_bytes()
    assert np.isfinite(b.numpy()).all()
