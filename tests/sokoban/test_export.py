"""ONNX export of one step agrees with torch; alpha = 0 interventions leave the trajectory unchanged."""

from __future__ import annotations

import numpy as np
import torch

from toolkit.sokoban.drc import AgentConfig, DRCAgent
from toolkit.sokoban.rollout import Intervention, rollout


def _agent():
    torch.manual_seed(1)
    return DRCAgent(AgentConfig(depth=2, ticks=2, channels=4, grid=(6, 6), hidden=16)).eval()


def test_onnx_matches_torch(tmp_path):
    from toolkit.sokoban.export import export_onnx, max_difference

    agent = _agent()
    export_onnx(agent, tmp_path / "a.onnx")
    assert max_difference(agent, tmp_path / "a.onnx", batch=3) < 1e-4


def test_zero_alpha_leaves_trajectory_unchanged(gen_levels):
    agent = _agent()
    levels = [lv for lv, _, _ in gen_levels[:6]]
    plain = rollout(agent, levels, cap=30)
    zero = Intervention(torch.zeros(6, 2, 4, 6, 6), layer=1)
    same = rollout(agent, levels, cap=30, intervention=zero)
    assert [e.actions for e in plain] == [e.actions for e in same]
    push = Intervention(torch.from_numpy(np.full((6, 2, 4, 6, 6), 50.0, np.float32)), layer=0)
    moved = rollout(agent, levels, cap=30, intervention=push)
    assert [e.actions for e in plain] != [e.actions for e in moved]
