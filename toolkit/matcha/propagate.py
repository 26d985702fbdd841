"""Hop propagation in pure torch: Â = D^-½ (A + I) D^-½ as a sparse CSR matrix, and Σ_k γ_k Â^k H.

The same normalisation as GCN (torch_geometric's gcn_norm with self-loops of weight 1), so an isolated node keeps
its own features. The hop stack [Â^0 H, ..., Â^K H] depends only on H; when H is frozen (every base TTA but Tent)
a change of γ costs one weighted sum instead of K sparse products.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch


def normalized_adjacency(edge_index, num_nodes: int, device: str | torch.device = "cpu") -> torch.Tensor:
    """Â for a symmetric edge_index (every Graph keeps its edges symmetrised)."""
    ei = torch.as_tensor(np.asarray(edge_index) if not torch.is_tensor(edge_index) else edge_index,
                         dtype=torch.long, device=device)
    ei = ei[:, ei[0] != ei[1]]
    loops = torch.arange(num_nodes, device=device)
    row = torch.cat([ei[0], loops])
    col = torch.cat([ei[1], loops])
    deg = torch.zeros(num_nodes, device=device).index_add_(0, col, torch.ones_like(col, dtype=torch.float32))
    inv = deg.pow(-0.5)
    weight = inv[row] * inv[col]
    # message from source row to target col: out[col] += w * h[row]  =>  matrix entry (col, row)
    adj = torch.sparse_coo_tensor(torch.stack([col, row]), weight, (num_nodes, num_nodes),
                                  check_invariants=False).coalesce()
    with warnings.catch_warnings():  # torch calls CSR "beta"; products with a dense matrix are all we use
        warnings.simplefilter("ignore", UserWarning)
        return adj.to_sparse_csr()


class _SymmetricProduct(torch.autograd.Function):
    """Â @ H whose backward is Â @ grad (Â is symmetric): torch's generic sparse backward transposes Â on every
    call, which made a Tent step four times slower than its forward."""

    @staticmethod
    def forward(ctx, adj, h):
        ctx.adj = adj
        return adj @ h

    @staticmethod
    def backward(ctx, grad):
        return None, ctx.adj @ grad


def spmm(adj: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    return _SymmetricProduct.apply(adj, h) if h.requires_grad else adj @ h


def hop_stack(adj: torch.Tensor, h: torch.Tensor, K: int) -> torch.Tensor:
    """[K+1, N, D]: H, ÂH, ..., Â^K H."""
    hops = [h]
    for _ in range(K):
        hops.append(spmm(adj, hops[-1]))
    return torch.stack(hops)


def combine(stack: torch.Tensor, gamma: torch.Tensor) -> torch.Tensor:
    return torch.einsum("k,knd->nd", gamma.to(stack.dtype), stack)


def propagate(adj: torch.Tensor, h: torch.Tensor, gamma: torch.Tensor) -> torch.Tensor:
    """Σ_k γ_k Â^k H without keeping the stack."""
    out = h * gamma[0]
    for k in range(1, len(gamma)):
        h = spmm(adj, h)
        out = out + gamma[k] * h
    return out
