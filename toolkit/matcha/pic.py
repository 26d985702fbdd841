"""Prediction-informed clustering (PIC) loss: within-cluster variance over total variance of node features.

L = Σ_ic P_ic ‖z_i − μ_c‖² / Σ_i ‖z_i − z̄‖²,  μ_c = Σ_i P_ic z_i / Σ_i P_ic,
with P the (detached) soft pseudo-labels of a base TTA. L = 1 for uniform P, 0 for one-hot P whose classes have
identical features, so minimising it over the hop weights separates the classes the predictions see.
"""

from __future__ import annotations

import torch


def pic_loss(z: torch.Tensor, prob: torch.Tensor) -> torch.Tensor:
    prob = prob.detach().to(z.dtype)
    mass = prob.sum(0).clamp_min(1e-12)                     # [C]
    means = (prob.T @ z) / mass[:, None]                     # [C, D]
    sq = ((z[:, None, :] - means[None]) ** 2).sum(-1)        # [N, C]
    within = (prob * sq).sum()
    total = ((z - z.mean(0)) ** 2).sum().clamp_min(1e-12)
    return within / total
