"""The Thinker-format DRC actor (Chung et al.'s `thinker` DRCNet, as trained by Bush et al.) <-> our DRCAgent.

Thinker names: encoder.0 (3x3 conv), core.layers.k.main (ConvLSTM gates i, f, o, g and a 5th attention gate,
unused without attention, dropped here), core.layers.k.proj (pool-and-inject depthwise (2x1) conv), final_layer,
policy, baseline, and norm_low/norm_high (observation scaling (x - low) / (high - low)). Both use the same gate
input order [x_enc, h of the layer below, own h, pool-and-inject(own h)], so the mapping is a renaming. The official
DRCNet feeds the raw encoder conv output to the core and the head (no ReLU): imported agents carry encoder_relu=False.
"""

from __future__ import annotations

import re
from pathlib import Path

import torch

from toolkit.core.errors import InputError
from toolkit.sokoban.drc import AgentConfig, DRCAgent
from toolkit.sokoban.env import N_ACTIONS, N_CHANNELS

_LAYER = re.compile(r"core\.layers\.(\d+)\.main\.weight$")


def load_thinker_file(path: Path, trust_pickle: bool) -> dict[str, torch.Tensor]:
    """The actor state dict of a checkpoint: a safetensors file, or (with trust_pickle) a torch pickle (.tar/.pt)
    holding it directly or under 'actor_net_state_dict'."""
    if not path.is_file():
        raise InputError(f"{path}: no such thinker checkpoint")
    with path.open("rb") as fh:
        head = fh.read(8)
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        try:
            return load_file(str(path))
        except Exception as exc:  # noqa: BLE001 - any parse failure is a bad input file
            raise InputError(f"{path}: not a readable safetensors file ({exc})") from None
    if not trust_pickle:
        raise InputError(f"{path}: a pickle checkpoint can run code when loaded; pass --trust-pickle if you trust "
                         f"its source, or convert it to .safetensors")
    if not head:
        raise InputError(f"{path}: empty checkpoint file")
    try:
        try:  # the restricted unpickler first; full unpickling only where the file needs it
            ckp = torch.load(str(path), map_location="cpu", weights_only=True)
        except Exception:  # noqa: BLE001
            ckp = torch.load(str(path), map_location="cpu", weights_only=False)
    except Exception as exc:  # noqa: BLE001
        raise InputError(f"{path}: not a torch checkpoint ({exc})") from None
    sd = ckp.get("actor_net_state_dict", ckp) if isinstance(ckp, dict) else None
    if not isinstance(sd, dict) or not all(isinstance(v, torch.Tensor) for v in sd.values()):
        raise InputError(f"{path}: no actor state dict (expected a dict of tensors or 'actor_net_state_dict')")
    return dict(sd)


def _need(sd: dict, key: str, where: str) -> torch.Tensor:
    if key not in sd:
        raise InputError(f"{where}: missing tensor '{key}'")
    return sd[key].float()


def from_thinker(sd: dict[str, torch.Tensor], ticks: int = 3, where: str = "thinker state dict") -> DRCAgent:
    """Build a DRCAgent from a Thinker DRCNet state dict (D layers and C channels read from the shapes)."""
    unknown = sorted(k for k in sd if k.startswith("encoder.") and not k.startswith("encoder.0."))
    if unknown:
        raise InputError(f"{where}: encoder with more than one conv ('{unknown[0]}'); only the 3x3 one-conv "
                         f"encoder of the Sokoban DRC is supported")
    enc_w = _need(sd, "encoder.0.weight", where)
    C, cin, kh, kw = enc_w.shape
    if cin != N_CHANNELS or (kh, kw) != (3, 3):
        raise InputError(f"{where}: encoder.0.weight has shape {tuple(enc_w.shape)}, expected (C, {N_CHANNELS}, 3, 3)")
    depth = len([k for k in sd if _LAYER.match(k)])
    if depth == 0:
        raise InputError(f"{where}: no core.layers.k.main.weight tensors")
    final_w = _need(sd, "final_layer.weight", where)
    side = int(round((final_w.shape[1] // (2 * C)) ** 0.5))
    if side * side * 2 * C != final_w.shape[1]:
        raise InputError(f"{where}: final_layer.weight in-features {final_w.shape[1]} is not 2*C*H*W of a square grid")
    policy_w = _need(sd, "policy.weight", where)
    if policy_w.shape[0] != N_ACTIONS:
        raise InputError(f"{where}: policy has {policy_w.shape[0]} actions, expected {N_ACTIONS}")
    cfg = AgentConfig(arch="drc", depth=depth, ticks=ticks, channels=C, grid=(side, side), hidden=final_w.shape[0],
                      encoder_relu=False)
    agent = DRCAgent(cfg)
    scale = torch.ones(N_CHANNELS)
    if "norm_low" in sd or "norm_high" in sd:
        low, high = _need(sd, "norm_low", where), _need(sd, "norm_high", where)
        if low.abs().max() > 0:
            raise InputError(f"{where}: norm_low is not zero; only a scaling x / high is supported")
        per_channel = high.reshape(high.shape[0], -1) if high.dim() > 1 else high.reshape(-1, 1)
        if per_channel.shape[0] != N_CHANNELS or (per_channel != per_channel[:, :1]).any():
            raise InputError(f"{where}: norm_high is not constant per channel")
        scale = per_channel[:, 0]
    ours = {"encoder.weight": enc_w / scale.view(1, -1, 1, 1), "encoder.bias": _need(sd, "encoder.0.bias", where),
            "final.weight": final_w, "final.bias": _need(sd, "final_layer.bias", where),
            "policy.weight": policy_w, "policy.bias": _need(sd, "policy.bias", where),
            "baseline.weight": _need(sd, "baseline.weight", where), "baseline.bias": _need(sd, "baseline.bias", where)}
    for k in range(depth):
        main_w = _need(sd, f"core.layers.{k}.main.weight", where)
        if tuple(main_w.shape) != (5 * C, 4 * C, 3, 3) and tuple(main_w.shape) != (4 * C, 4 * C, 3, 3):
            raise InputError(f"{where}: core.layers.{k}.main.weight has shape {tuple(main_w.shape)}, expected "
                             f"({5 * C}, {4 * C}, 3, 3) (input = C encoder + C below + C own h + C pool-inject)")
        ours[f"cells.{k}.main.weight"] = main_w[:4 * C]
        ours[f"cells.{k}.main.bias"] = _need(sd, f"core.layers.{k}.main.bias", where)[:4 * C]
        ours[f"cells.{k}.pool.conv.weight"] = _need(sd, f"core.layers.{k}.proj.weight", where)
        ours[f"cells.{k}.pool.conv.bias"] = _need(sd, f"core.layers.{k}.proj.bias", where)
    expected = agent.state_dict()
    for name, tensor in ours.items():
        if tuple(expected[name].shape) != tuple(tensor.shape):
            raise InputError(f"{where}: tensor for '{name}' has shape {tuple(tensor.shape)}, "
                             f"expected {tuple(expected[name].shape)}")
    agent.load_state_dict(ours)
    return agent.eval()


def to_thinker(agent: DRCAgent) -> dict[str, torch.Tensor]:
    """Our DRC agent as a Thinker DRCNet state dict (5th, attention, gate block zero; no observation scaling)."""
    if agent.cfg.arch != "drc":
        raise InputError("only DRC agents have a Thinker form (not --arch ff)")
    if agent.cfg.encoder_relu:
        raise InputError("the agent puts a ReLU on its encoder output (encoder_relu in config.json) and the Thinker "
                         "DRCNet has none: its Thinker form would act differently")
    sd = {k: v.detach().clone() for k, v in agent.state_dict().items()}
    C = agent.cfg.channels
    out = {"encoder.0.weight": sd["encoder.weight"], "encoder.0.bias": sd["encoder.bias"],
           "final_layer.weight": sd["final.weight"], "final_layer.bias": sd["final.bias"],
           "policy.weight": sd["policy.weight"], "policy.bias": sd["policy.bias"],
           "baseline.weight": sd["baseline.weight"], "baseline.bias": sd["baseline.bias"]}
    for k in range(agent.cfg.depth):
        w, b = sd[f"cells.{k}.main.weight"], sd[f"cells.{k}.main.bias"]
        out[f"core.layers.{k}.main.weight"] = torch.cat([w, torch.zeros(C, *w.shape[1:])])
        out[f"core.layers.{k}.main.bias"] = torch.cat([b, torch.zeros(C)])
        out[f"core.layers.{k}.proj.weight"] = sd[f"cells.{k}.pool.conv.weight"]
        out[f"core.layers.{k}.proj.bias"] = sd[f"cells.{k}.pool.conv.bias"]
    return out
