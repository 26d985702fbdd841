"""ONNX export of one agent step: (obs, state) -> (logits, value, new state), batch axis dynamic."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import torch

from toolkit.sokoban.drc import DRCAgent


class _Step(torch.nn.Module):
    def __init__(self, agent: DRCAgent):
        super().__init__()
        self.agent = agent

    def forward(self, obs, state):
        return self.agent(obs, state)


def export_onnx(agent: DRCAgent, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    obs = torch.zeros(1, 7, *agent.cfg.grid)
    batch = {0: "batch"}
    with warnings.catch_warnings():  # the TorchScript exporter needs no onnxscript; its deprecation notice is noise
        warnings.simplefilter("ignore")
        torch.onnx.export(_Step(agent).eval(), (obs, agent.initial_state(1)), str(path), dynamo=False,
                          input_names=["obs", "state"], output_names=["logits", "value", "new_state"],
                          dynamic_axes={"obs": batch, "state": batch, "logits": batch, "value": batch,
                                        "new_state": batch})
    import onnx

    onnx.checker.check_model(onnx.load(str(path)))  # a malformed graph fails here, not in a user's runtime


def max_difference(agent: DRCAgent, path: Path, batch: int = 4, seed: int = 0) -> float:
    """Largest |onnxruntime - torch| over logits, value and state for random inputs."""
    import onnxruntime as ort

    rng = np.random.default_rng(seed)
    obs = rng.random((batch, 7, *agent.cfg.grid), dtype=np.float32)
    state = rng.standard_normal(tuple(agent.initial_state(batch).shape)).astype(np.float32)
    got = ort.InferenceSession(str(path)).run(None, {"obs": obs, "state": state})
    with torch.no_grad():
        want = agent(torch.from_numpy(obs), torch.from_numpy(state))
    return float(max(np.abs(g - w.numpy()).max() for g, w in zip(got, want, strict=True)))
