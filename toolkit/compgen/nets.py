"""Deep networks on rendered versions of the tasks, compared with the kernel theory.

Each component value is drawn as a fixed random 8x8 glyph; an input is its components' glyphs
side by side (one 8 x 8C grey image). A network is trained on the training combinations; its
held-out outputs are compared with the theory's prediction for the same network: kernel
regression with the network's empirical neural tangent kernel at initialization (the lazy
regime), both in full and averaged over overlap patterns (its compositionally structured part).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from toolkit.compgen.tasks import Task
from toolkit.core.errors import InputError
from toolkit.core.extras import require

ARCHS = ("mlp", "convnet", "resnet", "vit")
GLYPH = 8


def render(task: Task, seed: int = 0) -> np.ndarray:
    """(N, 1, 8, 8C) float32 images; glyphs are fixed by the seed, one per (component, value)."""
    rng = np.random.default_rng(seed)
    glyphs = [rng.integers(0, 2, size=(n, GLYPH, GLYPH)).astype(np.float32) for n in task.sizes]
    images = np.concatenate([glyphs[c][task.x[:, c]] for c in range(task.components)], axis=2)
    return (images[:, None] - 0.5) * 2.0


def build_net(arch: str, components: int, width: int = 64):
    import torch
    from torch import nn

    if arch == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(GLYPH * GLYPH * components, width), nn.ReLU(),
                             nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 1))
    if arch == "convnet":
        return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
                             nn.Flatten(), nn.Linear(16 * GLYPH * GLYPH * components, width), nn.ReLU(),
                             nn.Linear(width, 1))
    if arch == "resnet":
        class Block(nn.Module):
            def __init__(self, ch: int):
                super().__init__()
                self.a, self.b = nn.Conv2d(ch, ch, 3, padding=1), nn.Conv2d(ch, ch, 3, padding=1)

            def forward(self, x):
                return torch.relu(x + self.b(torch.relu(self.a(x))))

        return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), Block(16), Block(16), nn.Flatten(),
                             nn.Linear(16 * GLYPH * GLYPH * components, 1))
    if arch == "vit":
        class TinyViT(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Conv2d(1, 32, GLYPH, stride=GLYPH)  # one token per component glyph
                self.pos = nn.Parameter(torch.randn(1, components, 32) * 0.02)
                layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
                self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
                self.head = nn.Linear(32 * components, 1)

            def forward(self, x):
                tokens = self.embed(x).flatten(2).transpose(1, 2) + self.pos
                return self.head(self.encoder(tokens).flatten(1))

        return TinyViT()
    raise InputError(f"unknown architecture '{arch}' (known: {', '.join(ARCHS)})")


def empirical_ntk(net, images) -> np.ndarray:
    """K[i, j] = <d f(x_i)/d theta, d f(x_j)/d theta> at the current parameters."""
    import torch

    params = [p for p in net.parameters() if p.requires_grad]
    rows = []
    for i in range(len(images)):
        net.zero_grad()
        out = net(images[i: i + 1]).sum()
        grads = torch.autograd.grad(out, params)
        rows.append(torch.cat([g.reshape(-1) for g in grads]))
    jac = torch.stack(rows).double()
    return (jac @ jac.T).numpy()


def pattern_average(task: Task, k: np.ndarray) -> np.ndarray:
    """Average a kernel over overlap patterns: its compositionally structured part."""
    c = task.components
    eq = task.x[:, None, :] == task.x[None, :, :]
    pattern = (eq * (1 << np.arange(c))).sum(-1)
    sims = np.zeros(2**c)
    for p in range(2**c):
        mask = pattern == p
        sims[p] = k[mask].mean() if mask.any() else 0.0
    return sims


@dataclass
class NetResult:
    arch: str
    net_pred: np.ndarray
    ntk_pred: np.ndarray
    structured_pred: np.ndarray
    sims: np.ndarray
    final_loss: float


def lazy_prediction(k: np.ndarray, f0: np.ndarray, task: Task, ridge: float) -> np.ndarray:
    tr = task.train
    ktr = k[np.ix_(tr, tr)] + ridge * np.eye(int(tr.sum()))
    alpha = np.linalg.lstsq(ktr, task.y[tr] - f0[tr], rcond=None)[0]
    return f0 + k[:, tr] @ alpha


def train_and_compare(task: Task, arch: str, *, steps: int = 400, lr: float = 1e-3, width: int = 64,
                      seed: int = 0, ridge: float = 1e-6) -> NetResult:
    require("ml", "torch")
    import torch

    torch.manual_seed(seed)
    images = torch.from_numpy(render(task, seed))
    net = build_net(arch, task.components, width)
    with torch.no_grad():
        f0 = net(images).squeeze(1).double().numpy()
    k = empirical_ntk(net, images)
    ntk_pred = lazy_prediction(k, f0, task, ridge * np.trace(k) / len(k))
    sims = pattern_average(task, k)
    structured = lazy_prediction(_structured_kernel(task, sims), f0, task, ridge * sims.max())
    tr = torch.from_numpy(task.train)
    target = torch.from_numpy(task.y).float()
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    loss = torch.tensor(0.0)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((net(images[tr]).squeeze(1) - target[tr]) ** 2).mean()
        loss.backward()
        opt.step()
    with torch.no_grad():
        pred = net(images).squeeze(1).double().numpy()
    return NetResult(arch, pred, ntk_pred, structured, sims, float(loss.detach()))


def _structured_kernel(task: Task, sims: np.ndarray) -> np.ndarray:
    from toolkit.compgen.kernels import kernel_matrix

    return kernel_matrix(task.x, task.x, sims)


def agreement(task: Task, a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Correlation and mean squared difference of two predictions on held-out inputs."""
    test = ~task.train
    if test.sum() < 2:
        return {"corr": float("nan"), "msd": float("nan")}
    x, y = a[test], b[test]
    corr = float(np.corrcoef(x, y)[0, 1]) if x.std() > 0 and y.std() > 0 else float("nan")
    return {"corr": corr, "msd": float(np.mean((x - y) ** 2))}
