"""Control vectors: derivation from contrastive activations, arithmetic, safetensors I/O."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.models import load_tensors, save_tensors

METHODS = ("mean", "mean-diff", "pca-diff")


@dataclass
class ControlVector:
    """One direction per block index (0-based), plus where it came from."""

    directions: dict[int, object]  # layer -> float32 tensor [hidden]
    model: str = ""
    model_type: str = ""
    method: str = ""
    meta: dict = field(default_factory=dict)

    @property
    def layers(self) -> list[int]:
        return sorted(self.directions)

    @property
    def hidden_size(self) -> int:
        return int(next(iter(self.directions.values())).shape[-1])

    def only(self, layers: list[int]) -> ControlVector:
        missing = [la for la in layers if la not in self.directions]
        if missing:
            raise InputError(f"vector has no direction for layer(s) {missing}; it has {self.layers}")
        return ControlVector({la: self.directions[la] for la in layers}, self.model, self.model_type, self.method,
                             dict(self.meta))

    def scale(self, factor: float) -> ControlVector:
        return ControlVector({k: v * factor for k, v in self.directions.items()}, self.model, self.model_type,
                             self.method, dict(self.meta))

    def __mul__(self, factor: float) -> ControlVector:
        return self.scale(factor)

    __rmul__ = __mul__

    def __neg__(self) -> ControlVector:
        return self.scale(-1.0)

    def __add__(self, other: ControlVector) -> ControlVector:
        """Layer-wise sum; a layer present in only one vector keeps that vector's direction."""
        if self.directions and other.directions and self.hidden_size != other.hidden_size:
            raise InputError(f"cannot add vectors of hidden size {self.hidden_size} and {other.hidden_size}")
        out = {k: v.clone() for k, v in self.directions.items()}
        for k, v in other.directions.items():
            out[k] = out[k] + v if k in out else v.clone()
        method = self.method if self.method == other.method else f"{self.method}+{other.method}"
        return ControlVector(out, self.model, self.model_type, method, dict(self.meta))

    def __sub__(self, other: ControlVector) -> ControlVector:
        return self + (-other)


def derive_direction(pos, neg, method: str):
    """One direction from paired activations pos[i] <-> neg[i] ([n, hidden] float tensors).

    mean:      mean of the positive activations (the model's typical state on correct solutions);
    mean-diff: mean of pos - neg;
    pca-diff:  first principal axis of the (uncentred) differences pos - neg, with the sign chosen
               so positives project higher than their negatives in most pairs, and scaled to the
               mean projected gap, so alpha = 1 moves one average pair gap along it.
    """
    import torch

    if method == "mean":
        return pos.mean(0)
    diffs = pos - neg
    if method == "mean-diff":
        return diffs.mean(0)
    if method != "pca-diff":
        raise InputError(f"--method {method}: expected one of {', '.join(METHODS)}")
    _, _, vh = torch.linalg.svd(diffs.double(), full_matrices=False)
    axis = vh[0].float()
    gap = (pos @ axis) - (neg @ axis)
    higher = int((gap > 0).sum())
    lower = int((gap < 0).sum())
    if lower > higher or (lower == higher and float(gap.mean()) < 0):
        axis, gap = -axis, -gap
    return axis * gap.abs().mean()


def derive(model, tokenizer, pairs, layers: list[int], method: str, *, batch_size: int = 32,
           layers_path: str | None = None, model_name: str = "", device: str = "cpu") -> ControlVector:
    """Read last-token block outputs for positives and negatives, then derive one direction per layer."""
    from toolkit.steer.activations import read_last_token

    if method not in METHODS:
        raise InputError(f"--method {method}: expected one of {', '.join(METHODS)}")
    if not pairs:
        raise InputError("no contrastive pairs to derive a vector from")
    pos = read_last_token(model, tokenizer, [p.positive for p in pairs], layers, batch_size=batch_size,
                          layers_path=layers_path, device=device)
    neg = read_last_token(model, tokenizer, [p.negative for p in pairs], layers, batch_size=batch_size,
                          layers_path=layers_path, device=device)
    directions = {layer: derive_direction(pos[layer], neg[layer], method).contiguous() for layer in layers}
    meta = {"pairs": len(pairs), "families": sorted({p.family for p in pairs})}
    return ControlVector(directions, model_name, getattr(model.config, "model_type", ""), method, meta)


def save_vector(vec: ControlVector, path: str | Path) -> None:
    metadata = {"format": "reason.steer.vector", "model": vec.model, "model_type": vec.model_type,
                "method": vec.method, "layers": ",".join(str(x) for x in vec.layers),
                "hidden_size": str(vec.hidden_size), "meta": json.dumps(vec.meta, sort_keys=True)}
    tensors = {f"layer.{k}": v.float() for k, v in vec.directions.items()}
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        save_tensors(tensors, path, metadata)
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    except Exception as exc:  # safetensors reports I/O failures as its own error type
        if type(exc).__name__ != "SafetensorError":
            raise
        raise InputError(f"{path}: cannot write ({str(exc).splitlines()[0]})") from None


def load_vector(path: str | Path) -> ControlVector:
    """Load a vector saved by save_vector (or `reason steer derive`); `.gguf` files go through import."""
    if str(path).endswith(".gguf"):
        from toolkit.steer.gguf_io import import_gguf

        return import_gguf(path)
    tensors, meta = load_tensors(path)
    directions = {}
    for name, t in tensors.items():
        if not name.startswith("layer.") or not name[6:].lstrip("-").isdigit():
            raise InputError(f"{path}: tensor '{name}' is not a control-vector direction (expected layer.N)")
        if t.dim() != 1:
            raise InputError(f"{path}: tensor '{name}' has shape {tuple(t.shape)}, expected one dimension")
        directions[int(name[6:])] = t.float()
    if not directions:
        raise InputError(f"{path}: no directions in this file")
    sizes = {int(t.shape[0]) for t in directions.values()}
    if len(sizes) > 1:
        raise InputError(f"{path}: directions have different sizes {sorted(sizes)}")
    try:
        extra = json.loads(meta.get("meta", "{}"))
    except json.JSONDecodeError:
        extra = {}
    return ControlVector(directions, meta.get("model", ""), meta.get("model_type", ""), meta.get("method", ""), extra)
