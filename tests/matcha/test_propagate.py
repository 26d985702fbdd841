import numpy as np
import pytest
import torch

from toolkit.matcha.io import clean_edges
from toolkit.matcha.propagate import combine, hop_stack, normalized_adjacency, propagate


def _graph():
    rng = np.random.default_rng(0)
    n = 60
    e = rng.integers(0, 50, size=(2, 150))  # nodes 50..59 stay isolated
    return n, clean_edges(e, n)


def test_matches_torch_geometric_gcn_norm_message_passing():
    pytest.importorskip("torch_geometric")
    from toolkit.matcha.pyg_reference import pyg_propagate

    n, ei = _graph()
    h = torch.randn(n, 8, dtype=torch.float64)
    gamma = torch.tensor([0.5, -0.3, 0.2, 0.1], dtype=torch.float64)
    ref = pyg_propagate(torch.as_tensor(ei), h, gamma)
    adj = normalized_adjacency(ei, n).to(torch.float64)
    ours = propagate(adj, h, gamma)
    assert torch.allclose(ours, ref, atol=1e-6)
    assert torch.allclose(ours[50:], h[50:] * gamma.sum(), atol=1e-9)  # isolated: self-loop weight 1
    assert torch.allclose(combine(hop_stack(adj, h, 3), gamma), ref, atol=1e-6)


def test_symmetric_backward_equals_dense_gradient():
    n, ei = _graph()
    adj = normalized_adjacency(ei, n)
    dense = adj.to_dense()
    h = torch.randn(n, 4, requires_grad=True)
    gamma = torch.tensor([1.0, 0.5, 0.25])
    (propagate(adj, h, gamma) ** 2).sum().backward()
    g_sparse = h.grad.clone()
    h.grad = None
    x, out = h, h * gamma[0]
    for k in range(1, 3):
        x = dense @ x
        out = out + gamma[k] * x
    (out ** 2).sum().backward()
    assert torch.allclose(g_sparse, h.grad, atol=1e-5)
