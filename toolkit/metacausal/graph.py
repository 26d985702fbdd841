"""From mechanisms and per-sample assignments to a meta-causal state graph.

Mechanisms of the same type (by the chosen attributes: direction, sign) merge into one state. Reading the
samples in time order gives the state sequence; consecutive pairs give transition counts, P(j | i), and at each
switch (i != j) the environment is averaged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TYPE_FIELDS = ("direction", "sign")


@dataclass
class StateGraph:
    states: list[dict]  # id, type, mechanisms, samples
    counts: np.ndarray  # S x S transition counts (self-transitions included)
    switch_environment: dict[tuple[int, int], float | None]

    @property
    def probabilities(self) -> np.ndarray:
        rows = self.counts.sum(axis=1, keepdims=True)
        return np.divide(self.counts, rows, out=np.zeros_like(self.counts, dtype=float), where=rows > 0)


def parse_types(text: str) -> tuple[str, ...]:
    from toolkit.core.errors import InputError

    fields = tuple(f.strip() for f in text.split(",") if f.strip())
    for f in fields:
        if f not in TYPE_FIELDS:
            raise InputError(f"--types {f!r}: unknown; choose from {', '.join(TYPE_FIELDS)}")
    if not fields:
        raise InputError("--types: empty")
    return fields


def state_of_mechanism(mechanisms: list[dict], fields: tuple[str, ...]) -> tuple[list[dict], list[int]]:
    """States (one per distinct type, in order of first appearance) and each mechanism's state index."""
    states: list[dict] = []
    index: dict[tuple, int] = {}
    mapping = []
    for m in mechanisms:
        key = tuple(m["type"][f] for f in fields)
        if key not in index:
            index[key] = len(states)
            states.append({"id": len(states), "type": dict(zip(fields, key, strict=True)), "mechanisms": []})
        states[index[key]]["mechanisms"].append(m["id"])
        mapping.append(index[key])
    return states, mapping


def transitions(sequence: list[int], n_states: int, environment: list[float | None] | None = None) -> tuple:
    """(counts S x S, mean environment at each switch i -> j, or None where it is unknown)."""
    counts = np.zeros((n_states, n_states), dtype=np.int64)
    env_sum: dict[tuple[int, int], list[float]] = {}
    for t in range(1, len(sequence)):
        i, j = sequence[t - 1], sequence[t]
        counts[i, j] += 1
        if i != j:
            env = None if environment is None else environment[t]
            env_sum.setdefault((i, j), [])
            if env is not None:
                env_sum[(i, j)].append(env)
    means = {key: (float(np.mean(v)) if v else None) for key, v in env_sum.items()}
    return counts, means


def smooth_sequence(sequence: list[int], window: int, n_states: int) -> list[int]:
    """Majority state over a centred window of `window` samples (ties keep the sample's own state).

    Points near where two lines cross fit either mechanism about equally well, so single samples flip state;
    a window of a few samples removes these one-step excursions when the system itself switches rarely."""
    if window <= 1 or not sequence:
        return list(sequence)
    seq = np.asarray(sequence)
    onehot = np.zeros((seq.size, n_states))
    onehot[np.arange(seq.size), seq] = 1.0
    half = window // 2
    padded = np.concatenate([np.zeros((1, n_states)), np.cumsum(onehot, axis=0)])
    lo = np.clip(np.arange(seq.size) - half, 0, seq.size)
    hi = np.clip(np.arange(seq.size) + half + 1, 0, seq.size)
    votes = padded[hi] - padded[lo]
    best = votes.max(axis=1)
    keep = votes[np.arange(seq.size), seq] == best
    return np.where(keep, seq, votes.argmax(axis=1)).tolist()


def build(mechanisms: list[dict], assignments: list[dict], fields: tuple[str, ...], smooth: int = 1) -> StateGraph:
    states, mapping = state_of_mechanism(mechanisms, fields)
    ordered = sorted(assignments, key=lambda a: (a["t"], a["index"]))
    sequence = smooth_sequence([mapping[a["state"]] for a in ordered], smooth, len(states))
    environment = [a.get("environment") for a in ordered]
    counts, means = transitions(sequence, len(states), environment)
    for s in states:
        s["samples"] = int(sum(1 for v in sequence if v == s["id"]))
    return StateGraph(states, counts, means)


def build_joint(parts: list[tuple[str, list[dict], list[dict]]], fields: tuple[str, ...],
                smooth: int = 1) -> StateGraph:
    """States of several variable pairs joined over time: at each time step present in every pair, the joint state
    is the tuple of the pairs' own (smoothed) states; transitions are counted over that joint sequence.

    parts: (pair name, mechanisms, assignments) per pair, each pair inferred on its own."""
    per_pair = []
    for pair, mechanisms, assignments in parts:
        states, mapping = state_of_mechanism(mechanisms, fields)
        ordered = sorted(assignments, key=lambda a: (a["t"], a["index"]))
        sequence = smooth_sequence([mapping[a["state"]] for a in ordered], smooth, len(states))
        per_pair.append((pair, states, {a["t"]: (s, a.get("environment")) for a, s in zip(ordered, sequence,
                                                                                        strict=True)}))
    times = sorted(set.intersection(*(set(by_t) for _, _, by_t in per_pair)))
    joint: list[dict] = []
    index: dict[tuple, int] = {}
    sequence, environment = [], []
    for t in times:
        key = tuple(by_t[t][0] for _, _, by_t in per_pair)
        if key not in index:
            index[key] = len(joint)
            joint.append({"id": len(joint),
                          "type": {f"{pair} {f}": states[s]["type"][f]
                                   for (pair, states, _), s in zip(per_pair, key, strict=True) for f in fields},
                          "mechanisms": [f"{pair}#{m}" for (pair, states, _), s in zip(per_pair, key, strict=True)
                                         for m in states[s]["mechanisms"]]})
        sequence.append(index[key])
        environment.append(per_pair[0][2][t][1])
    counts, means = transitions(sequence, len(joint), environment)
    for s in joint:
        s["samples"] = int(sum(1 for v in sequence if v == s["id"]))
    return StateGraph(joint, counts, means)


def to_networkx(graph: StateGraph):
    import networkx as nx

    g = nx.DiGraph()
    probs = graph.probabilities
    for s in graph.states:
        label = " ".join(f"{k}={v}" for k, v in s["type"].items())
        g.add_node(s["id"], label=label, samples=s["samples"], mechanisms=",".join(map(str, s["mechanisms"])),
                   **{f"type_{k}": v for k, v in s["type"].items()})
    for i in range(len(graph.states)):
        for j in range(len(graph.states)):
            if graph.counts[i, j]:
                env = graph.switch_environment.get((i, j))
                attrs = {"count": int(graph.counts[i, j]), "probability": float(round(probs[i, j], 8))}
                if env is not None:
                    attrs["mean_environment"] = float(round(env, 8))
                g.add_edge(i, j, **attrs)
    return g


def node_link(graph: StateGraph) -> dict:
    import networkx as nx

    return nx.node_link_data(to_networkx(graph), edges="links")


def draw(graph: StateGraph, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import networkx as nx

    g = to_networkx(graph)
    pos = nx.circular_layout(g)
    fig, ax = plt.subplots(figsize=(6, 5))
    nx.draw_networkx_nodes(g, pos, node_size=[600 + 3 * g.nodes[n]["samples"] ** 0.8 for n in g], node_color="#9ecae1",
                           ax=ax)
    nx.draw_networkx_labels(g, pos, {n: f"{n}\n{g.nodes[n]['label']}" for n in g}, font_size=8, ax=ax)
    switches = [(i, j) for i, j in g.edges if i != j]
    nx.draw_networkx_edges(g, pos, edgelist=switches, connectionstyle="arc3,rad=0.15", arrowsize=14, ax=ax,
                           node_size=1200)
    nx.draw_networkx_edge_labels(g, pos, {(i, j): f"{g.edges[i, j]['probability']:.3f}" for i, j in switches},
                                 font_size=7, connectionstyle="arc3,rad=0.15", ax=ax)
    ax.set_title("meta-causal states: P(next | current) at switches")
    ax.margins(0.25)
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
