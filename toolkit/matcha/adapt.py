"""Matcha: adapt only the hop weights γ by minimising the PIC loss on a base TTA's soft pseudo-labels.

Each round runs the base TTA from scratch with the current γ (its predictions P), computes the PIC loss on the
features of the model itself (not the base TTA's adapted copy) and takes one SGD step on γ (torch.optim.SGD). The
paper takes a constant step and outputs the last round, which can move a point or more on one step of size 1; by
default the round with the lowest PIC loss is output instead (label-free; `stop="last"` gives the paper's), and
`schedule="cosine"` anneals the step to ~0 by the last round.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from toolkit.matcha.gprgnn import GPRGNN
from toolkit.matcha.io import Graph
from toolkit.matcha.output import DEFAULT_SCHEDULE, DEFAULT_STOP, SCHEDULES, STOPS
from toolkit.matcha.pic import pic_loss
from toolkit.matcha.propagate import combine, hop_stack, normalized_adjacency, propagate
from toolkit.matcha.tta import run_tta

BATCH_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm)


class TargetView:
    """Target features as a function of the model's hop weights.

    For a GPRGNN the lin1 output and (BN frozen) the whole hop stack are computed once, so a round costs a weighted
    sum; Tent recomputes only BN and the K hops. Any other model of the protocol goes through its featurize().
    """

    def __init__(self, model: nn.Module, graph: Graph, device: str = "cpu") -> None:
        self.model, self.device = model, device
        self.x = torch.as_tensor(graph.x, device=device)
        self.edge_index = torch.as_tensor(graph.edge_index, device=device)
        self.classifier = model.classifier
        self.classes = model.classifier.out_features
        self.fast = isinstance(model, GPRGNN)
        if self.fast:
            self.adj = normalized_adjacency(self.edge_index, graph.num_nodes, device)
            with torch.no_grad():
                self.pre = model.lin1(self.x)
                self.stack = hop_stack(self.adj, F.relu(model.bn1(self.pre)), model.K)

    def features(self) -> torch.Tensor:
        if self.fast:
            return combine(self.stack, self.model.hop_weights)
        return self.model.featurize(self.x, self.edge_index)

    def tent_forward(self):
        """(trainable copies of the BN affine parameters, a logits function using target batch statistics)."""
        if self.fast:
            bn = self.model.bn1
            w = bn.weight.detach().clone().requires_grad_(True)
            b = bn.bias.detach().clone().requires_grad_(True)
            gamma, head = self.model.hop_weights.detach(), self.classifier.weight.detach()

            def forward():
                h = F.relu(F.batch_norm(self.pre, None, None, w, b, training=True, eps=bn.eps))
                return propagate(self.adj, h, gamma) @ head.T
            return [w, b], forward
        clone = copy.deepcopy(self.model)
        clone.requires_grad_(False)
        params = []
        for m in clone.modules():
            if isinstance(m, BATCH_NORMS):
                m.track_running_stats, m.running_mean, m.running_var = False, None, None
                for p in (m.weight, m.bias):
                    if p is not None:
                        p.requires_grad_(True)
                        params.append(p)
        return params, lambda: clone.classifier(clone.featurize(self.x, self.edge_index))


@dataclass
class AdaptResult:
    tta: str
    matcha: bool
    rounds: int
    lr: float
    gamma_before: list[float]
    gamma_after: list[float]
    logits: torch.Tensor
    trace: list[dict] = field(default_factory=list)
    chosen_round: int | None = None
    wall_s: float = 0.0
    schedule: str = "constant"
    stop: str = "last"


def accuracy(logits: torch.Tensor, graph: Graph) -> float | None:
    if graph.y is None:
        return None
    pred = logits.argmax(1).cpu().numpy()
    mask = graph.test_mask if graph.test_mask is not None else np.ones(len(pred), dtype=bool)
    return float((pred[mask] == graph.y[mask]).mean())


def matcha_adapt(model: nn.Module, graph: Graph, tta: str = "erm", *, matcha: bool = True, rounds: int = 50,
                 lr: float = 1.0, stop: str = DEFAULT_STOP, schedule: str = DEFAULT_SCHEDULE,
                 memory: dict | None = None, device: str = "cpu", **tta_hp) -> AdaptResult:
    """Run the base TTA (with Matcha: `rounds` rounds of γ updates) on a copy of `model`; `model` is untouched.

    `schedule` sets the step on γ over the rounds (constant: the paper's; cosine: annealed to ~0 by the last
    round), `stop` the round whose output is returned (last, or pic: the lowest PIC loss)."""
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule {schedule!r}: expected one of {SCHEDULES}")
    if stop not in STOPS:
        raise ValueError(f"stop {stop!r}: expected one of {STOPS}")
    start = time.perf_counter()
    model = copy.deepcopy(model).to(device).eval()
    model.requires_grad_(False)
    gamma = model.hop_weights
    gamma.requires_grad_(True)
    before = gamma.detach().cpu().tolist()
    view = TargetView(model, graph, device)
    n_rounds = max(rounds, 1) if matcha else 1
    opt = torch.optim.SGD([gamma], lr=lr)
    steps = (torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(n_rounds - 1, 1))
             if schedule == "cosine" else None)
    trace, outputs = [], []
    for r in range(n_rounds):
        logits = run_tta(tta, view, memory, **tta_hp).detach()
        opt.zero_grad()
        loss = pic_loss(view.features(), logits.softmax(1))
        row = {"round": r, "pic": round(loss.item(), 6), "gamma": [round(g, 6) for g in gamma.detach().tolist()],
               "step": opt.param_groups[0]["lr"]}
        acc = accuracy(logits, graph)
        if acc is not None:
            row["accuracy"] = round(acc, 6)
        trace.append(row)
        outputs.append(logits)
        if matcha and rounds > 0 and r < n_rounds - 1:  # a step after the last round would change nothing output
            loss.backward()
            opt.step()
            if steps is not None:
                steps.step()
    chosen = len(outputs) - 1
    if stop == "pic":
        chosen = int(np.argmin([row["pic"] for row in trace]))
    return AdaptResult(tta, matcha, rounds if matcha else 0, lr, before, trace[chosen]["gamma"],
                       outputs[chosen], trace, chosen, round(time.perf_counter() - start, 4), schedule, stop)


def oracle_gamma(model: nn.Module, graph: Graph, *, steps: int = 200, lr: float = 0.05,
                 device: str = "cpu") -> tuple[list[float], float]:
    """γ fitted on the target labels (cross-entropy, Adam, everything else frozen): an upper bound for any γ-only
    adaptation of the ERM head. Returns (γ, accuracy)."""
    model = copy.deepcopy(model).to(device).eval()
    model.requires_grad_(False)
    gamma = model.hop_weights
    gamma.requires_grad_(True)
    view = TargetView(model, graph, device)
    y = torch.as_tensor(graph.y, device=device)
    mask = torch.as_tensor(graph.test_mask, device=device) if graph.test_mask is not None else None
    opt = torch.optim.Adam([gamma], lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        logits = view.classifier(view.features())
        (F.cross_entropy(logits[mask], y[mask]) if mask is not None else F.cross_entropy(logits, y)).backward()
        opt.step()
    with torch.no_grad():
        acc = accuracy(view.classifier(view.features()), graph)
    return gamma.detach().cpu().tolist(), acc
