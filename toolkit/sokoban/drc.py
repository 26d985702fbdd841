"""DRC(D, N): a stack of D ConvLSTM layers ticked N times per env step (Guez et al. 2019; Bush et al. 2025).

Each tick, layer d convolves [x_enc, h of layer d-1 (layer 1: the top layer's h from the previous tick),
its own h, pool-and-inject(own h)] into gates i, f, o, g; c = sig(f) c + sig(i) tanh(g), h = sig(o) tanh(c).
The head reads flatten[x_enc, h_D] -> ReLU(Linear 256) -> policy logits (5) and value.
x_enc is the 3x3 encoder conv of the observation; the official DRCNet (thinker/actor_net.py) uses it raw, the agents
trained here put a ReLU on it (`encoder_relu`, true in their config.json and when the key is absent).
`arch="ff"` is the same-size feed-forward baseline: D*N 3x3 conv layers, no memory.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from torch import nn

from toolkit.core import console
from toolkit.core.errors import InputError
from toolkit.sokoban.env import ACTIONS, CHANNELS, N_ACTIONS, N_CHANNELS

# hook(tick, layer, c) -> c: called after the gates, before h = sig(o) tanh(c) (plan interventions)
CellHook = Callable[[int, int, torch.Tensor], torch.Tensor]


@dataclass
class AgentConfig:
    arch: str = "drc"
    depth: int = 2
    ticks: int = 2
    channels: int = 16
    grid: tuple[int, int] = (6, 6)
    hidden: int = 256
    actions: tuple[str, ...] = tuple(ACTIONS)
    obs_channels: tuple[str, ...] = tuple(CHANNELS)
    # True: x_enc = ReLU(conv(obs)) (the agents trained here); False: the official DRCNet's raw conv output
    encoder_relu: bool = True

    def to_json(self) -> dict:
        return {**asdict(self), "grid": list(self.grid), "actions": list(self.actions),
                "obs_channels": list(self.obs_channels)}

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.to_json(), sort_keys=True).encode()).hexdigest()[:16]


class PoolInject(nn.Module):
    """Spatial mean and max of h, mixed per channel by a depthwise (2x1) conv, broadcast over the grid."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, (2, 1), groups=channels)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        pooled = torch.stack([h.mean(dim=(2, 3)), h.amax(dim=(2, 3))], dim=2).unsqueeze(3)  # B,C,2,1
        return self.conv(pooled).expand_as(h)


class ConvLSTMCell(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.main = nn.Conv2d(4 * channels, 4 * channels, 3, padding=1)
        self.pool = PoolInject(channels)
        with torch.no_grad():  # forget-gate bias 1: remember by default
            self.main.bias[channels:2 * channels].fill_(1.0)

    def forward(self, x, below, h, c, hook=None):
        gates = self.main(torch.cat([x, below, h, self.pool(h)], dim=1))
        i, f, o, g = gates.chunk(4, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        if hook is not None:
            c = hook(c)
        return torch.sigmoid(o) * torch.tanh(c), c


class DRCAgent(nn.Module):
    def __init__(self, cfg: AgentConfig):
        super().__init__()
        self.cfg = cfg
        C, (H, W) = cfg.channels, cfg.grid
        self.encoder = nn.Conv2d(N_CHANNELS, C, 3, padding=1)
        if cfg.arch == "drc":
            self.cells = nn.ModuleList([ConvLSTMCell(C) for _ in range(cfg.depth)])
        else:
            self.convs = nn.ModuleList([nn.Conv2d(C, C, 3, padding=1) for _ in range(cfg.depth * cfg.ticks)])
        self.final = nn.Linear(2 * C * H * W, cfg.hidden)
        self.policy = nn.Linear(cfg.hidden, N_ACTIONS)
        self.baseline = nn.Linear(cfg.hidden, 1)

    def initial_state(self, batch: int) -> torch.Tensor:
        """State (B, 2, D, C, H, W): [cell c, hidden h] per layer; zeros at episode start."""
        C, (H, W) = self.cfg.channels, self.cfg.grid
        return torch.zeros(batch, 2, self.cfg.depth, C, H, W)

    def core(self, x, state, hook: CellHook | None = None, trace: list | None = None, ticks: int | None = None):
        """Run the ticks; returns the new state. `trace` collects the (B,2,D,C,H,W) state after every tick."""
        if self.cfg.arch != "drc":
            h = x
            for conv in self.convs:
                h = torch.relu(conv(h))
            out = state.clone()
            out[:, 1, -1] = h
            return out
        c = list(state[:, 0].unbind(1))
        h = list(state[:, 1].unbind(1))
        D = self.cfg.depth
        for t in range(self.cfg.ticks if ticks is None else ticks):
            for d in range(D):
                below = h[d - 1] if d > 0 else h[D - 1]
                tick_hook = None if hook is None else (lambda cc, t=t, d=d: hook(t, d, cc))
                h[d], c[d] = self.cells[d](x, below, h[d], c[d], tick_hook)
            if trace is not None:
                trace.append(torch.stack([torch.stack(c, 1), torch.stack(h, 1)], 1))
        return torch.stack([torch.stack(c, 1), torch.stack(h, 1)], 1)

    def forward(self, obs, state, hook: CellHook | None = None, trace: list | None = None, ticks: int | None = None):
        """One env step: (obs (B,7,H,W), state) -> (logits, value, new state)."""
        x = self.encoder(obs)
        if self.cfg.encoder_relu:
            x = torch.relu(x)
        state = self.core(x, state, hook, trace, ticks)
        top = state[:, 1, -1]
        z = torch.relu(self.final(torch.cat([x, top], dim=1).flatten(1)))
        return self.policy(z), self.baseline(z).squeeze(-1), state


MOMENTS = "optimizer.safetensors"


def save_agent(agent: DRCAgent, out: Path, log: dict | None = None, half: bool = True,
               moments: dict | None = None) -> None:
    """config.json and model.safetensors, with train_log.json and the optimizer's `moments` (optimizer.safetensors,
    tied to these weights by their hash) where given."""
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    # each file is written beside its name and moved into place, so a run stopped mid-write (a training
    # checkpoint) leaves the previous complete file, never a truncated one
    names = (("config.json", "model.safetensors") + (() if log is None else ("train_log.json",))
             + (() if moments is None else (MOMENTS,)))
    tmp = {name: out / f".{name}.tmp" for name in names}
    tmp["config.json"].write_text(json.dumps({**agent.cfg.to_json(), "config_hash": agent.cfg.digest()},
                                             indent=1) + "\n")
    # float16 storage keeps the shipped agent under 1 MB; loading widens it back to float32
    tensors = {k: (v.detach().half() if half else v.detach().float()).contiguous()
               for k, v in agent.state_dict().items()}
    save_file(tensors, str(tmp["model.safetensors"]))
    if log is not None:
        tmp["train_log.json"].write_text(json.dumps(log, indent=1) + "\n")
    if moments is not None:
        save_file({k: v.contiguous() for k, v in moments.items()}, str(tmp[MOMENTS]),
                  metadata={"model_sha256": _sha256(tmp["model.safetensors"])})
    for name, path in tmp.items():
        path.replace(out / name)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def saved_moments(path: Path, agent: DRCAgent) -> dict | None:
    """The optimizer moments saved with this agent's weights; a damaged file or one of another shape is an input
    error, one left from other weights (the model rewritten since) is skipped with a warning."""
    from toolkit.core.models import load_tensors

    file = path / MOMENTS
    if not file.is_file():
        return None
    moments, meta = load_tensors(file)
    if meta.get("model_sha256") != _sha256(path / "model.safetensors"):
        console.warn(f"{file}: saved with other weights than {path / 'model.safetensors'}; fresh Adam moments")
        return None
    for n, p in agent.named_parameters():
        for key in (f"exp_avg.{n}", f"exp_avg_sq.{n}"):
            if key not in moments or tuple(moments[key].shape) != tuple(p.shape):
                raise InputError(f"{file}: '{key}' is missing or not of shape {tuple(p.shape)}")
        if f"step.{n}" not in moments:
            raise InputError(f"{file}: 'step.{n}' is missing")
    return moments


def load_agent(path: str | Path) -> DRCAgent:
    """An agent directory (config.json + model.safetensors); shape mismatches and corrupted files are input errors."""
    from toolkit.core.models import load_tensors

    d = Path(path)
    if not d.is_dir():
        raise InputError(f"{d}: no such agent directory")
    if not (d / "config.json").is_file():
        raise InputError(f"{d}: agent directory without config.json")
    if not (d / "model.safetensors").is_file():
        raise InputError(f"{d}: agent directory without model.safetensors")
    try:
        raw = json.loads((d / "config.json").read_text())
        relu = raw.get("encoder_relu", True)  # configs written before the key existed: trained with the ReLU
        if not isinstance(relu, bool):
            raise ValueError(f"encoder_relu must be true or false, not {relu!r}")
        cfg = AgentConfig(arch=raw["arch"], depth=int(raw["depth"]), ticks=int(raw["ticks"]),
                          channels=int(raw["channels"]), grid=tuple(raw["grid"]), hidden=int(raw.get("hidden", 256)),
                          encoder_relu=relu)
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{d / 'config.json'}: bad agent config ({exc})") from None
    agent = DRCAgent(cfg)
    weights, _ = load_tensors(d / "model.safetensors")
    expected = agent.state_dict()
    for name, tensor in weights.items():
        if name in expected and tuple(expected[name].shape) != tuple(tensor.shape):
            raise InputError(f"{d / 'model.safetensors'}: tensor '{name}' has shape {tuple(tensor.shape)}, "
                             f"config.json implies {tuple(expected[name].shape)}")
    missing = sorted(set(expected) - set(weights))
    if missing:
        raise InputError(f"{d / 'model.safetensors'}: missing tensor '{missing[0]}' for config.json")
    agent.load_state_dict({k: v.float() for k, v in weights.items()})
    agent.eval()
    # probes and cases are tied to one agent: config and weights together
    agent.fingerprint = hashlib.sha256((d / "config.json").read_bytes() + (d / "model.safetensors").read_bytes()
                                       ).hexdigest()[:16]
    return agent
