"""Base test-time adaptation algorithms on the target graph, each run from scratch and returning logits.

They never change the model: Tent trains copies of the BatchNorm affine parameters, T3A and AdaNPC only read
features. `view` (toolkit.matcha.adapt.TargetView) gives the target features under the current hop weights.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

TTAS = ("erm", "tent", "t3a", "adanpc")
DEFAULTS = {"tent_lr": 0.1, "tent_steps": 10, "t3a_filter_k": 2000, "t3a_temperature": 1.0,
            "adanpc_k": 10, "adanpc_tau": 0.001}


def entropy(logits: torch.Tensor) -> torch.Tensor:
    return -(logits.softmax(1) * logits.log_softmax(1)).sum(1)


def erm(view) -> torch.Tensor:
    with torch.no_grad():
        return view.classifier(view.features())


def tent(view, lr: float = 0.1, steps: int = 10) -> torch.Tensor:
    """Entropy minimisation over BN affine parameters, BN normalising with the target graph's batch statistics."""
    params, forward = view.tent_forward()
    if not params:  # no BatchNorm to adapt: Tent has nothing to change
        return erm(view)
    opt = torch.optim.SGD(params, lr=lr)
    with torch.enable_grad():
        for _ in range(steps):
            opt.zero_grad()
            entropy(forward()).mean().backward()
            opt.step()
    with torch.no_grad():
        return forward()


def t3a(z: torch.Tensor, classifier: torch.nn.Module, filter_k: int = 2000, temperature: float = 1.0) -> torch.Tensor:
    """Supports = classifier rows + target features, pseudo-labelled and filtered to the filter_k lowest-entropy
    per class; logits = z · (normalised class sums of L2-normalised supports) / temperature.

    The temperature (1: T3A as published) changes no prediction, only how soft the probabilities are that Matcha
    takes as pseudo-labels: unit-norm prototypes of classes that share a common mean direction give flat logits."""
    with torch.no_grad():
        weight = classifier.weight
        classes = weight.shape[0]
        supports = torch.cat([weight, z])
        logits = classifier(supports)
        labels, ent = logits.argmax(1), entropy(logits)
        keep = []
        for c in range(classes):
            idx = torch.nonzero(labels == c).flatten()
            order = torch.sort(ent[idx], stable=True).indices
            keep.append(idx[order] if filter_k < 0 else idx[order][:filter_k])
        keep = torch.cat(keep)
        s = F.normalize(supports[keep], dim=1)
        onehot = F.one_hot(labels[keep], classes).to(s.dtype)
        return z @ F.normalize(s.T @ onehot, dim=0) / temperature


def adanpc(z: torch.Tensor, mem_z: torch.Tensor, mem_y: torch.Tensor, classes: int, k: int = 10,
           tau: float = 0.001, chunk: int = 2048) -> torch.Tensor:
    """k nearest source features by cosine similarity, votes weighted by softmax(sim/τ); log-probabilities."""
    with torch.no_grad():
        mem = F.normalize(mem_z.to(z.device, z.dtype), dim=1)
        mem_y = mem_y.to(z.device)
        zn = F.normalize(z, dim=1)
        k = min(k, mem.shape[0])
        out = []
        for start in range(0, zn.shape[0], chunk):
            top, idx = (zn[start:start + chunk] @ mem.T).topk(k, dim=1)
            w = torch.softmax(top / tau, dim=1)
            probs = torch.zeros(len(top), classes, dtype=z.dtype, device=z.device).scatter_add_(1, mem_y[idx].long(), w)
            out.append(torch.log(probs.clamp_min(1e-12)))
        return torch.cat(out)


def run_tta(name: str, view, memory: dict | None = None, **hp) -> torch.Tensor:
    hp = {**DEFAULTS, **{k: v for k, v in hp.items() if v is not None}}
    if name == "erm":
        return erm(view)
    if name == "tent":
        return tent(view, hp["tent_lr"], hp["tent_steps"])
    with torch.no_grad():
        z = view.features()
    if name == "t3a":
        return t3a(z, view.classifier, hp["t3a_filter_k"], hp["t3a_temperature"])
    if name == "adanpc":
        return adanpc(z, memory["z"], memory["y"], view.classes, hp["adanpc_k"], hp["adanpc_tau"])
    raise ValueError(name)
