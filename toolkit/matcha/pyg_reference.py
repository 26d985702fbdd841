"""The same hop propagation written with torch_geometric (gcn_norm + MessagePassing), as the paper's code does it:
the reference our pure-torch version is tested and benchmarked against. Needs the `graph` extra."""

from __future__ import annotations

import torch


def pyg_propagate(edge_index: torch.Tensor, h: torch.Tensor, gamma: torch.Tensor) -> torch.Tensor:
    from torch_geometric.nn import MessagePassing
    from torch_geometric.nn.conv.gcn_conv import gcn_norm

    class Prop(MessagePassing):
        def __init__(self):
            super().__init__(aggr="add")

        def forward(self, x, ei, w):
            return self.propagate(ei, x=x, norm=w)

        def message(self, x_j, norm):
            return norm.view(-1, 1) * x_j

    ei, w = gcn_norm(edge_index, None, num_nodes=h.shape[0], dtype=h.dtype)
    prop, x, out = Prop(), h, h * gamma[0]
    for k in range(1, len(gamma)):
        x = prop(x, ei, w)
        out = out + gamma[k] * x
    return out
