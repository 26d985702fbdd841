"""One-layer Mamba-1 selective SSM (Theorem 1's setting) with a measurable state bottleneck.

Mixer: in_proj -> (x, z); causal depthwise conv (k=4) + SiLU on x; x_proj -> (dt, B, C); dt = softplus(dt_proj);
A = -exp(A_log); h_t = exp(dt A) h_{t-1} + dt B x_t (the fused CPU scan of `scan.py`); y = C h + D x; y * SiLU(z);
out_proj. With `expand * hidden` channels it computes exactly what transformers' MambaMixer computes.

The bottleneck: a sequence is `<s> table  SEP*(k-1)  query -> answer`. The k-1 separators flush the conv state,
so at the last separator the recurrent state is the only carrier of the table; there it is fake-quantized to
p bits per float (symmetric, per channel, straight-through gradient). The message crossing the bottleneck
is B = channels * state * p bits, the quantity the one-way communication bound is about.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F


class SelectiveMixer(nn.Module):
    def __init__(self, hidden: int, state: int, channels: int | None = None, conv_kernel: int = 4,
                 dt_rank: int | None = None):
        super().__init__()
        self.channels = channels or 2 * hidden
        self.state, self.kernel = state, conv_kernel
        self.dt_rank = dt_rank or math.ceil(hidden / 16)
        self.in_proj = nn.Linear(hidden, 2 * self.channels, bias=False)
        self.conv1d = nn.Conv1d(self.channels, self.channels, conv_kernel, groups=self.channels,
                                padding=conv_kernel - 1)
        self.x_proj = nn.Linear(self.channels, self.dt_rank + 2 * state, bias=False)
        self.dt_proj = nn.Linear(self.dt_rank, self.channels)
        a = torch.arange(1, state + 1, dtype=torch.float32).expand(self.channels, -1)
        self.A_log = nn.Parameter(torch.log(a).clone())
        self.D = nn.Parameter(torch.ones(self.channels))
        self.out_proj = nn.Linear(self.channels, hidden, bias=False)
        with torch.no_grad():  # dt in [1e-3, 1e-1] at start, as in Mamba
            dt = torch.exp(torch.rand(self.channels) * (math.log(0.1) - math.log(1e-3)) + math.log(1e-3))
            self.dt_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))

    def forward(self, hidden_states: torch.Tensor, cut: int | None = None, quantize=None,
                state_override: torch.Tensor | None = None) -> torch.Tensor:
        """`cut`: index whose state is passed through `quantize` (and/or replaced by `state_override`) before
        the scan goes on; None scans straight through."""
        from toolkit.ssm_limits.scan import fused_scan

        _, length, _ = hidden_states.shape
        xs, z = self.in_proj(hidden_states).chunk(2, dim=-1)
        xs = F.silu(self.conv1d(xs.transpose(1, 2))[..., :length].transpose(1, 2))
        dt, b, c = torch.split(self.x_proj(xs), [self.dt_rank, self.state, self.state], dim=-1)
        dt = F.softplus(self.dt_proj(dt))
        a = -torch.exp(self.A_log.float())
        if cut is None:
            y, _ = fused_scan(xs, dt, a, b, c)
        else:
            y_head, h_cut = fused_scan(xs[:, : cut + 1], dt[:, : cut + 1], a, b[:, : cut + 1], c[:, : cut + 1])
            last = h_cut
            if quantize is not None:
                last = quantize(last)
            if state_override is not None:
                last = state_override
            self.last_state = last
            y_cut = (last * c[:, cut].unsqueeze(1)).sum(-1)  # the output at the cut reads the passed state
            y_tail, _ = fused_scan(xs[:, cut + 1:], dt[:, cut + 1:], a, b[:, cut + 1:], c[:, cut + 1:], h0=last)
            y = torch.cat([y_head[:, :-1], y_cut.unsqueeze(1), y_tail], dim=1)
        y = y + self.D * xs
        return self.out_proj(y * F.silu(z))

    def load_from_mamba(self, mixer) -> None:
        """Copy the weights of a transformers MambaMixer (same sizes)."""
        with torch.no_grad():
            for name in ("in_proj", "x_proj", "dt_proj", "out_proj", "conv1d"):
                getattr(self, name).load_state_dict(getattr(mixer, name).state_dict())
            self.A_log.copy_(mixer.A_log)
            self.D.copy_(mixer.D)


class FakeQuant(nn.Module):
    """Symmetric p-bit fake quantization per channel; the range is a running max (not learned from the answer)."""

    def __init__(self, channels: int, bits: int, momentum: float = 0.05):
        super().__init__()
        if bits < 1:
            raise ValueError("bits must be >= 1")
        self.bits, self.momentum = bits, momentum
        self.register_buffer("scale", torch.ones(channels))

    def forward(self, h: torch.Tensor) -> torch.Tensor:  # h: (B, D, N)
        if self.training:
            with torch.no_grad():
                now = h.abs().amax(dim=(0, 2)).clamp_min(1e-6)
                self.scale.mul_(1 - self.momentum).add_(self.momentum * now)
        levels = 2 ** self.bits
        s = self.scale.view(1, -1, 1)
        step = 2 * s / (levels - 1)
        q = torch.round((h.clamp(-s, s) + s) / step) * step - s  # `levels` points spanning [-s, s]
        return h + (q - h).detach()


class SelectiveLM(nn.Module):
    """Embedding -> one SelectiveMixer (residual, RMS-normed) -> tied head."""

    def __init__(self, vocab: int, hidden: int, state: int, channels: int, bits: int | None):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.norm_in = nn.RMSNorm(hidden)
        self.mixer = SelectiveMixer(hidden, state, channels)
        self.norm_out = nn.RMSNorm(hidden)
        self.quant = FakeQuant(channels, bits) if bits else None
        self.bits = bits

    def forward(self, ids: torch.Tensor, cut: int, state_override=None) -> torch.Tensor:
        x = self.embed(ids)
        x = x + self.mixer(self.norm_in(x), cut=cut, quantize=self.quant, state_override=state_override)
        return self.norm_out(x) @ self.embed.weight.T

    def message_bits(self) -> int:
        return self.mixer.channels * self.mixer.state * (self.bits or 32)


def fano_ceiling(n: int, bits: float) -> float:
    """Best accuracy of any guess of a uniform table entry f(x) in [n] from a B-bit message and x."""
    if n <= 1:
        return 1.0
    if n == 2:
        return 1.0 if bits >= n else min(1.0, 0.5 + bits / (2 * n))
    return max(0.0, min(1.0, 1 - (math.log2(n) - bits / n - 1) / math.log2(n - 1)))
