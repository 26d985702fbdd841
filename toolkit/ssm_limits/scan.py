"""Mamba's selective scan fused into one numba loop per (sequence, channel), for training on a CPU.

    a_t = exp(dt_t A),  h_t = a_t h_{t-1} + dt_t B_t x_t,  y_t = C_t . h_t

The PyTorch formulations (mambapy's `pscan`, transformers' reference loop) materialise several
(batch, length, channels, state) tensors (exp(dt A), dt B x, the states, h * C) and their gradients; on one
CPU thread the broadcasting multiplications over them take most of a training step. Here only exp(dt A) is
stored at that size; the forward keeps a (state,) vector per channel and the backward recomputes the states
of one channel at a time. `FusedScanMixer` is transformers' public `MambaMixer` with its full-sequence forward
(no cache) computed through it; `use_fast_mamba_scan(model)` puts it into a model's layers for a block.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import torch
from numba import njit
from torch.nn import functional as F


@njit(cache=True, fastmath=True)
def _forward(x, dt, decay, b_in, c_in, h0, y, h_last):  # x, dt, y: (B, L, D); decay: (B, L, D, N) = exp(dt A)
    batch, length, channels = x.shape
    n_state = decay.shape[3]
    for b in range(batch):
        for d in range(channels):
            h = h0[b, d].copy()
            for t in range(length):
                step, u = dt[b, t, d], x[b, t, d]
                acc = 0.0
                for n in range(n_state):
                    h[n] = decay[b, t, d, n] * h[n] + step * b_in[b, t, n] * u
                    acc += h[n] * c_in[b, t, n]
                y[b, t, d] = acc
            h_last[b, d] = h


@njit(cache=True, fastmath=True)
def _backward(x, dt, a_mat, decay, b_in, c_in, h0, gy, g_last, gx, gdt, ga, gb, gc, gh0):
    batch, length, channels = x.shape
    n_state = a_mat.shape[1]
    hs = np.empty((length + 1, n_state), dtype=np.float32)  # hs[t + 1] = h_t, hs[0] = h0
    g = np.empty(n_state, dtype=np.float32)
    for b in range(batch):
        for d in range(channels):
            hs[0] = h0[b, d]
            for t in range(length):
                step, u = dt[b, t, d], x[b, t, d]
                for n in range(n_state):
                    hs[t + 1, n] = decay[b, t, d, n] * hs[t, n] + step * b_in[b, t, n] * u
            g[:] = g_last[b, d]
            for t in range(length - 1, -1, -1):
                step, u, grad_y = dt[b, t, d], x[b, t, d], gy[b, t, d]
                grad_x = 0.0
                grad_dt = 0.0
                for n in range(n_state):
                    g[n] += grad_y * c_in[b, t, n]  # dLoss/dh_t
                    gc[b, t, n] += grad_y * hs[t + 1, n]
                    via_decay = g[n] * hs[t, n] * decay[b, t, d, n]  # dLoss/d(dt A) through a_t
                    grad_dt += via_decay * a_mat[d, n] + g[n] * b_in[b, t, n] * u
                    ga[d, n] += via_decay * step
                    gb[b, t, n] += g[n] * step * u
                    grad_x += g[n] * step * b_in[b, t, n]
                    g[n] *= decay[b, t, d, n]  # on to h_{t-1}
                gx[b, t, d] = grad_x
                gdt[b, t, d] = grad_dt
            gh0[b, d] = g


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().to(torch.float32).contiguous().numpy()


class _FusedScan(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dt, a_mat, b_in, c_in, h0):
        # exp(dt A) for every element at once: torch's vectorised exp is several times faster than a scalar exp
        # inside the loop, and the backward then needs no exp at all
        decay = torch.exp(dt.detach().float().unsqueeze(-1) * a_mat.detach().float())
        arrays = [_np(v) for v in (x, dt, decay, b_in, c_in, h0)]
        y = np.empty_like(arrays[0])
        h_last = np.empty_like(arrays[5])
        _forward(*arrays, y, h_last)
        ctx.save_for_backward(x, dt, a_mat, decay, b_in, c_in, h0)
        return torch.from_numpy(y), torch.from_numpy(h_last)

    @staticmethod
    def backward(ctx, gy, g_last):
        x, dt, a_mat, decay, b_in, c_in, h0 = (_np(v) for v in ctx.saved_tensors)
        gy = _np(gy) if gy is not None else np.zeros_like(x)
        g_last = _np(g_last) if g_last is not None else np.zeros_like(h0)
        grads = [np.zeros_like(v) for v in (x, dt, a_mat, b_in, c_in, h0)]
        _backward(x, dt, a_mat, decay, b_in, c_in, h0, gy, g_last, *grads)
        return tuple(torch.from_numpy(v) for v in grads)


def fused_scan(x, dt, a_mat, b_in, c_in, h0=None):
    """(y, h_last) of the selective recurrence. x, dt: (B, L, D) with dt already positive; a_mat: (D, N);
    b_in, c_in: (B, L, N); h0: (B, D, N) or None for zeros. Differentiable in every input."""
    if h0 is None:
        h0 = x.new_zeros(x.shape[0], x.shape[2], a_mat.shape[1])
    return _FusedScan.apply(x, dt, a_mat, b_in, c_in, h0)


def mamba_selective_scan(hidden_states, dt, A, B, C, D=None, z=None, delta_bias=None, delta_softplus=False,
                         return_last_state=False, **_):
    """transformers' `mamba_selective_scan` arguments and layout (x, dt, z (B, D, L); B, C (B, N, L)), computed
    with `fused_scan`."""
    input_dtype = hidden_states.dtype
    if delta_bias is not None:
        dt = dt + delta_bias.to(dt.dtype)[..., None]
    if delta_softplus:
        dt = F.softplus(dt)
    y, h_last = fused_scan(hidden_states.transpose(1, 2).float(), dt.transpose(1, 2).float(), A.float(),
                           B.transpose(1, 2).float(), C.transpose(1, 2).float())
    out = y.transpose(1, 2)
    if D is not None:
        out = out + hidden_states * D[None, :, None]
    if z is not None:
        out = out * F.silu(z)
    out = out.to(input_dtype)
    return (out, h_last) if return_last_state else out


def _mixer_class():
    from transformers.models.mamba.modeling_mamba import MambaMixer

    class FusedScanMixer(MambaMixer):
        """MambaMixer whose forward without a cache (training, scoring whole sequences) runs the fused scan; with a
        cache (prefill and decoding) it is the parent's forward unchanged."""

        def forward(self, hidden_states, cache=None, attention_mask=None, **kwargs):
            if cache is not None or kwargs.get("cache_params") is not None:
                return super().forward(hidden_states, cache=cache, attention_mask=attention_mask, **kwargs)
            dtype = hidden_states.dtype
            if attention_mask is not None and attention_mask.shape[1] > 1 and attention_mask.shape[0] > 1:
                hidden_states = (hidden_states * attention_mask[:, :, None]).to(dtype)
            projected = self.in_proj(hidden_states).transpose(1, 2)
            x, gate = projected.chunk(2, dim=1)
            length = x.shape[-1]
            x = self.act(self.conv1d(x)[..., :length])
            if attention_mask is not None and attention_mask.shape[1] > 1 and attention_mask.shape[0] > 1:
                x = x * attention_mask[:, None, :]
            time_step, b_in, c_in = torch.split(self.x_proj(x.transpose(1, 2)),
                                                [self.time_step_rank, self.ssm_state_size, self.ssm_state_size],
                                                dim=-1)
            dt = self.dt_proj.weight @ time_step.transpose(1, 2)
            y = mamba_selective_scan(x, dt, -torch.exp(self.A_log.float()), b_in.transpose(1, 2),
                                     c_in.transpose(1, 2), D=self.D.float(), z=gate,
                                     delta_bias=self.dt_proj.bias.float(), delta_softplus=True)
            return self.out_proj(y.transpose(1, 2).to(dtype))

    return FusedScanMixer


_FUSED = None


def fused_mixer_class():
    global _FUSED
    if _FUSED is None:
        _FUSED = _mixer_class()
    return _FUSED


@contextmanager
def use_fast_mamba_scan(model):
    """Within the block, the model's MambaMixer layers are FusedScanMixer (the same parameters and results);
    other models pass through unchanged."""
    from transformers.models.mamba.modeling_mamba import MambaMixer

    cls = fused_mixer_class()
    swapped = [m for m in model.modules() if type(m) is MambaMixer]
    for m in swapped:
        m.__class__ = cls
    try:
        yield model
    finally:
        for m in swapped:
            m.__class__ = MambaMixer
