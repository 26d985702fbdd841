"""Netlist comparison: exact equivalence by graph isomorphism, and the anchor's PPM metrics.

The graph is bipartite: element vertices (type, value) and net vertices (ground flagged). Edges carry
terminal roles: '+'/'-' for sources and controlled sources, 'a' for R/C/L (either way round), 'c+'/'c-'
to the control nets of E/G, 'ctrl' from F/H to their VI source, and '+'/'-' for U meters. 0 V ammeters
nobody reads are shorts: their nets merge. Element and meter names do not matter.
"""

from __future__ import annotations

from collections import Counter

from toolkit.maps.netlist import EMPTY, Netlist, parse_value


def _value(text: str):
    if text == EMPTY:
        return EMPTY
    try:
        return round(parse_value(text), 12)
    except ValueError:
        return text


def circuit_graph(net: Netlist):
    import networkx as nx

    read = {m.nodes[0].lower() for m in net.measures if m.expr.startswith("i(")}
    read |= {e.control[0].lower() for e in net.elements if e.kind in "FH"}
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            x = parent[x]
        return x

    for e in net.elements:
        if e.is_ammeter and e.name.lower() not in read and _value(e.value) == 0:
            a, b = find(e.nodes[0]), find(e.nodes[1])
            if a != b:
                parent[a] = b
    g = nx.Graph()

    def link(vertex: str, node: str, role: str) -> None:
        net_v = "n:" + find(node)
        g.add_node(net_v, kind="net", ground=find(node) == find("0"))
        roles = g.edges[vertex, net_v]["role"] + (role,) if g.has_edge(vertex, net_v) else (role,)
        g.add_edge(vertex, net_v, role=tuple(sorted(roles)))

    for e in net.elements:
        if e.is_ammeter and e.name.lower() not in read:
            continue
        v = "e:" + e.name.lower()
        kind = e.kind
        g.add_node(v, kind=kind, value=_value(e.value))
        polar = kind not in ("R", "C", "L")
        link(v, e.nodes[0], "+" if polar else "a")
        link(v, e.nodes[1], "-" if polar else "a")
        if kind in ("E", "G"):
            link(v, e.control[0], "c+")
            link(v, e.control[1], "c-")
    for e in net.elements:
        if e.kind in ("F", "H"):
            g.add_edge("e:" + e.name.lower(), "e:" + e.control[0].lower(), role=("ctrl",))
    for m in net.measures:
        v = "m:" + m.name.lower()
        if m.expr.startswith("v("):
            g.add_node(v, kind="U", value=None)
            link(v, m.nodes[0], "+")
            link(v, m.nodes[1] if len(m.nodes) > 1 else "0", "-")
        else:
            g.add_node(v, kind="I", value=None)
            g.add_edge(v, "e:" + m.nodes[0].lower(), role=("reads",))
    return g


def _node_match(a: dict, b: dict) -> bool:
    if a.get("kind") != b.get("kind"):
        return False
    if a["kind"] == "net":
        return a["ground"] == b["ground"]
    x, y = a.get("value"), b.get("value")
    if isinstance(x, float) and isinstance(y, float):
        return abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1e-30)
    return x == y


def equivalent(pred: Netlist, gold: Netlist) -> bool:
    """Exact structural equivalence up to relabelling of nets, elements and meters."""
    import networkx as nx

    gp, gg = circuit_graph(pred), circuit_graph(gold)
    if gp.number_of_nodes() != gg.number_of_nodes() or gp.number_of_edges() != gg.number_of_edges():
        return False
    return nx.is_isomorphic(gp, gg, node_match=_node_match, edge_match=lambda a, b: a["role"] == b["role"])


def anchor_metrics(pred: Netlist, gold: Netlist, pred_sim=None, gold_sim=None) -> dict:
    """The anchor's PPM metrics: string, per-type counts, type->values, meter results (|x|, 1e-3)."""
    def kinds(net):
        return Counter(e.kind for e in net.elements)

    def values(net):
        return {k: sorted(str(_value(e.value)) for e in net.elements if e.kind == k) for k in kinds(net)}

    out = {"string_equal": pred.text() == gold.text(), "count_equal": kinds(pred) == kinds(gold),
           "value_equal": values(pred) == values(gold)}
    if pred_sim is not None and gold_sim is not None:
        out["simulates"] = bool(pred_sim.ok)
        same = pred_sim.ok and gold_sim.ok and set(pred_sim.meters) == set(gold_sim.meters) and all(
            abs(abs(pred_sim.meters[k]) - abs(v)) <= 1e-3 for k, v in gold_sim.meters.items())
        out["meters_equal"] = bool(same)
    return out
