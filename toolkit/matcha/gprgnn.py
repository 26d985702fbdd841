"""GPRGNN (dropout → Linear → BatchNorm → ReLU → dropout → dropout → Σ γ_k Â^k H → Linear without bias), its
training on a labelled source graph, checkpoints, and the `py:MODULE:FN` model protocol.

Protocol for any hop-weight GNN: an nn.Module with `featurize(x, edge_index)` → [N, D], a linear `classifier`
and a 1-D Parameter `hop_weights` (the only tensor test-time adaptation changes).
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from toolkit.core.errors import InputError
from toolkit.matcha.io import Graph
from toolkit.matcha.propagate import normalized_adjacency, propagate

CONFIG, WEIGHTS, MEMORY, LOG = "config.json", "model.safetensors", "memory.safetensors", "training_log.json"


class GPRGNN(nn.Module):
    def __init__(self, in_features: int, hidden: int = 32, classes: int = 2, K: int = 9, dropout: float = 0.5,
                 dprate: float = 0.5) -> None:
        super().__init__()
        self.config = {"architecture": "gprgnn", "in_features": in_features, "hidden": hidden, "classes": classes,
                       "K": K, "dropout": dropout, "dprate": dprate}
        self.in_features, self.K, self.dropout, self.dprate = in_features, K, dropout, dprate
        self.lin1 = nn.Linear(in_features, hidden)
        self.bn1 = nn.BatchNorm1d(hidden)
        self.classifier = nn.Linear(hidden, classes, bias=False)
        gamma = torch.zeros(K + 1)
        gamma[0] = 1.0  # PPR init with alpha 1: only the node's own representation
        self.hop_weights = nn.Parameter(gamma)
        self.mask_rng: np.random.Generator | None = None  # set by training: fast exact masks for p = 0.5

    def input_dropout(self, x: torch.Tensor) -> torch.Tensor:
        """Dropout on the [N, F] input, the costliest step of an epoch on CPU. For p = 0.5 a mask is one random bit
        per entry, so unpacking random bytes gives the same Bernoulli(0.5) mask several times faster than torch's
        bernoulli sampler."""
        if not self.training or self.dropout == 0:
            return x
        if self.dropout != 0.5 or self.mask_rng is None or x.device.type != "cpu":
            return F.dropout(x, self.dropout, True)
        n = x.numel()
        bits = np.unpackbits(self.mask_rng.integers(0, 256, (n + 7) // 8, dtype=np.uint8))[:n]
        return x * torch.from_numpy(bits).view(x.shape) * 2.0

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        """The representation before propagation: ReLU(BN(lin1 x)) (with the dropouts in training)."""
        x = self.input_dropout(x)
        h = F.relu(self.bn1(self.lin1(x)))
        h = F.dropout(h, self.dropout, self.training)
        return F.dropout(h, self.dprate, self.training)

    def featurize(self, x: torch.Tensor, edge_index, adj: torch.Tensor | None = None) -> torch.Tensor:
        adj = normalized_adjacency(edge_index, x.shape[0], x.device) if adj is None else adj
        return propagate(adj, self.encode(x), self.hop_weights)

    def forward(self, x: torch.Tensor, edge_index, adj: torch.Tensor | None = None) -> torch.Tensor:
        return self.classifier(self.featurize(x, edge_index, adj))


def train_gprgnn(graph: Graph, *, K: int = 9, hidden: int = 32, epochs: int = 500, lr: float = 0.01,
                 weight_decay: float = 5e-4, seed: int = 0, device: str = "cpu") -> tuple[GPRGNN, dict]:
    """Full-batch cross-entropy on the source graph's training nodes (all nodes unless train_mask is set)."""
    if graph.y is None:
        raise InputError("the source graph has no labels (key 'y'); training needs them")
    torch.manual_seed(seed)
    classes = int(graph.y.max()) + 1
    model = GPRGNN(graph.num_features, hidden, classes, K).to(device)
    model.mask_rng = np.random.default_rng(seed)
    x = torch.as_tensor(graph.x, device=device)
    y = torch.as_tensor(graph.y, device=device)
    mask = torch.as_tensor(graph.train_mask, device=device) if graph.train_mask is not None else None
    adj = normalized_adjacency(graph.edge_index, graph.num_nodes, device)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    log, start = [], time.perf_counter()
    for epoch in range(epochs):
        model.train()
        opt.zero_grad()
        logits = model(x, None, adj)
        loss = F.cross_entropy(logits[mask] if mask is not None else logits, y[mask] if mask is not None else y)
        loss.backward()
        opt.step()
        if epoch % 10 == 0 or epoch == epochs - 1:
            log.append({"epoch": epoch, "loss": round(loss.item(), 6)})
    model.eval()
    model.mask_rng = None
    with torch.no_grad():
        pred = model(x, None, adj).argmax(1)
        acc = (pred == y).float().mean().item()
    info = {"epochs": epochs, "lr": lr, "weight_decay": weight_decay, "seed": seed, "train_accuracy": acc,
            "wall_s": round(time.perf_counter() - start, 3), "log": log}
    return model, info


def source_memory(model: nn.Module, graph: Graph, device: str = "cpu") -> dict[str, torch.Tensor]:
    """Source-node features and labels (AdaNPC's memory)."""
    model.eval()
    with torch.no_grad():
        z = model.featurize(torch.as_tensor(graph.x, device=device), graph.edge_index)
    return {"z": z.cpu().contiguous(), "y": torch.as_tensor(graph.y).contiguous()}


def save_model(model: GPRGNN, out: Path, info: dict, memory: dict[str, torch.Tensor]) -> None:
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(out / WEIGHTS))
    save_file(memory, str(out / MEMORY))
    (out / CONFIG).write_text(json.dumps({**model.config, "train": {k: v for k, v in info.items() if k != "log"}},
                                         indent=1) + "\n")
    (out / LOG).write_text(json.dumps(info["log"]) + "\n")


def load_model(spec: str, device: str = "cpu") -> tuple[nn.Module, dict | None]:
    """A model directory (config.json + model.safetensors) or py:MODULE:FN. Returns (model, AdaNPC memory)."""
    if spec.startswith("py:"):
        return _load_py(spec[3:]).to(device), None
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    d = Path(spec)
    if not d.is_dir():
        raise InputError(f"{d}: no such model directory")
    for name in (CONFIG, WEIGHTS):
        if not (d / name).is_file():
            raise InputError(f"{d}: model directory lacks {name}")
    try:
        cfg = json.loads((d / CONFIG).read_text())
        model = GPRGNN(cfg["in_features"], cfg["hidden"], cfg["classes"], cfg["K"], cfg["dropout"], cfg["dprate"])
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise InputError(f"{d / CONFIG}: not a GPRGNN config ({exc})") from None
    try:
        model.load_state_dict(load_file(str(d / WEIGHTS)))
        memory = load_file(str(d / MEMORY)) if (d / MEMORY).is_file() else None
    except (SafetensorError, RuntimeError, OSError) as exc:
        raise InputError(f"{d}: corrupted or mismatched checkpoint ({str(exc).splitlines()[0]})") from None
    model.eval()
    return model.to(device), memory


def _load_py(spec: str) -> nn.Module:
    module_name, _, attr = spec.rpartition(":")
    if not module_name or not attr:
        raise InputError(f"py:{spec}: expected py:MODULE:FN")
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        model = getattr(importlib.import_module(module_name), attr)()
    except (ImportError, AttributeError) as exc:
        raise InputError(f"py:{spec}: cannot load ({exc})") from None
    check_protocol(model, f"py:{spec}")
    model.eval()
    return model


def check_protocol(model, name: str) -> None:
    if not isinstance(model, nn.Module):
        raise InputError(f"{name}: returned {type(model).__name__}, expected a torch nn.Module")
    for attr in ("featurize", "classifier", "hop_weights"):
        if not hasattr(model, attr):
            raise InputError(f"{name}: the model lacks the attribute '{attr}' (needs featurize, classifier, "
                             f"hop_weights)")
    if not isinstance(model.classifier, nn.Linear):
        raise InputError(f"{name}: 'classifier' must be an nn.Linear")
    if not isinstance(model.hop_weights, nn.Parameter) or model.hop_weights.dim() != 1:
        raise InputError(f"{name}: 'hop_weights' must be a 1-D nn.Parameter")


def expected_features(model: nn.Module) -> int | None:
    n = getattr(model, "in_features", None)
    return int(n) if isinstance(n, int) else None
