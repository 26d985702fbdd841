"""Reasoning control vectors: read the residual stream, derive a direction, steer with alpha * v.

Public API:
    generate / make_pairs / read_pairs / read_problems   synthetic tasks and user pairs
    find_layers / parse_layers                           block discovery (--layers-path)
    read_last_token                                      batched last-token block outputs
    derive / ControlVector / save_vector / load_vector   vectors (+, -, * scalar)
    steering                                             context manager adding alpha * v
    generate_steered                                     steered generation
    sweep_split / choose / parse_alphas                  accuracy, KL and entropy per alpha
    export_gguf / import_gguf                            llama.cpp control-vector files
"""

from toolkit.steer.activations import read_last_token
from toolkit.steer.generate import generate_steered
from toolkit.steer.gguf_io import export_gguf, import_gguf
from toolkit.steer.hooks import steering
from toolkit.steer.layers import find_layers, parse_layers
from toolkit.steer.scoring import entropy_bits, kl_divergence, score_problems
from toolkit.steer.sweep import choose, parse_alphas, sweep_split
from toolkit.steer.tasks import FAMILIES, Pair, Problem, generate, make_pairs, read_pairs, read_problems
from toolkit.steer.vectors import METHODS, ControlVector, derive, load_vector, save_vector

__all__ = [
    "FAMILIES", "METHODS", "ControlVector", "Pair", "Problem", "choose", "derive", "entropy_bits", "export_gguf",
    "find_layers", "generate", "generate_steered", "import_gguf", "kl_divergence", "load_vector", "make_pairs",
    "parse_alphas", "parse_layers", "read_last_token", "read_pairs", "read_problems", "save_vector",
    "score_problems", "steering", "sweep_split",
]
