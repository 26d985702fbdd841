"""Matcha (ICLR 2025): test-time adaptation of a GNN's hop weights under graph structure shift.

Public API: generate_csbm, load_graph/save_graph, GPRGNN/train_gprgnn/load_model, matcha_adapt, oracle_gamma,
pic_loss, the base TTAs in tta, and the benchmark in bench/report.
"""

from toolkit.matcha.io import Graph, graph_stats, load_graph, save_graph

__all__ = ["Graph", "graph_stats", "load_graph", "save_graph"]
