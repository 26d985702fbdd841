"""Meta-causal states: switching linear mechanisms, their directions and the transitions between them.

Public API: sample a problem (`sample_linear`), fit and choose K (`infer`), build the state graph (`build_graph`),
run the K-identification benchmark (`run_protocol`).
"""

from toolkit.metacausal.generate import LinearProblem, sample_linear
from toolkit.metacausal.graph import StateGraph
from toolkit.metacausal.graph import build as build_graph
from toolkit.metacausal.inference import Inference, infer
from toolkit.metacausal.protocol import ProtocolSettings
from toolkit.metacausal.protocol_run import run_protocol

__all__ = ["Inference", "LinearProblem", "ProtocolSettings", "StateGraph", "build_graph", "infer", "run_protocol",
           "sample_linear"]
