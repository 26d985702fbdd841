"""Plain SGD and Adam steps. torch.optim imports torch._dynamo on first use, which costs seconds per process
(tens of seconds on a busy machine); these few lines do the same updates (Adam with L2 weight decay, as torch's)."""

from __future__ import annotations

import torch


def sgd_step(params, lr: float) -> None:
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p.sub_(lr * p.grad)
                p.grad = None


class Adam:
    def __init__(self, params, lr: float = 0.01, weight_decay: float = 0.0, betas=(0.9, 0.999), eps: float = 1e-8):
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.wd, self.betas, self.eps, self.t = lr, weight_decay, betas, eps, 0
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    def step(self) -> None:
        self.t += 1
        b1, b2 = self.betas
        c1, c2 = 1 - b1 ** self.t, 1 - b2 ** self.t
        with torch.no_grad():
            for p, m, v in zip(self.params, self.m, self.v, strict=True):
                if p.grad is None:
                    continue
                g = p.grad + self.wd * p if self.wd else p.grad
                m.mul_(b1).add_(g, alpha=1 - b1)
                v.mul_(b2).addcmul_(g, g, value=1 - b2)
                p.addcdiv_(m / c1, (v / c2).sqrt_().add_(self.eps), value=-self.lr)
