"""Grid circuits: edges between neighbouring grid points, each a wire, an open or one element, plus meters.

`to_netlist` turns a grid circuit into the card format: wires merge points into nets, the net of the
ground point is 0, the other nets are numbered in row-major order of their first point, and elements,
names and meters follow grid order (each point's right edge, then its down edge).
"""

from __future__ import annotations

from toolkit.maps.netlist import EMPTY, Element, Measure, Netlist

WIRE, OPEN = "wire", "open"


def grid_edges(rows: int, cols: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Every edge between neighbouring points, in grid order."""
    out = []
    for r in range(rows):
        for c in range(cols):
            if c + 1 < cols:
                out.append(((r, c), (r, c + 1)))
            if r + 1 < rows:
                out.append(((r, c), (r + 1, c)))
    return out


def on_outer_ring(a, b, rows: int, cols: int) -> bool:
    (r1, c1), (r2, _) = a, b
    if r1 == r2:
        return r1 in (0, rows - 1)
    return c1 in (0, cols - 1)


def assign_names(edges: list[dict]) -> None:
    """Name elements (R1, V1, ...) and meters (U1, I1, ...) in grid order; `meter` holds 'U'/'I' or a name."""
    counts: dict[str, int] = {}
    for e in edges:
        if e.get("meter"):
            letter = e["meter"][0]
            counts[letter] = counts.get(letter, 0) + 1
            e["meter"] = f"{letter}{counts[letter]}"
        if e["kind"] not in (WIRE, OPEN):
            counts["#" + e["kind"]] = counts.get("#" + e["kind"], 0) + 1
            e["name"] = f"{e['kind']}{counts['#' + e['kind']]}"


class UnionFind:
    """Disjoint sets over hashable keys (path halving)."""

    def __init__(self):
        self.parent: dict = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a, b):
        self.parent[self.find(a)] = self.find(b)


def point_nets(circuit: dict) -> dict[tuple[int, int], str]:
    """Grid point -> net name ('0' for the ground net)."""
    rows, cols = circuit["rows"], circuit["cols"]
    uf = UnionFind()
    for e in circuit["edges"]:
        if e["kind"] == WIRE and not (e.get("meter") or "").startswith("I"):
            uf.join(tuple(e["a"]), tuple(e["b"]))
    ground = uf.find(tuple(circuit["ground"]))
    names: dict = {ground: "0"}
    for r in range(rows):
        for c in range(cols):
            root = uf.find((r, c))
            if root not in names:
                names[root] = str(len(names))
    return {(r, c): names[uf.find((r, c))] for r in range(rows) for c in range(cols)}


def to_netlist(circuit: dict, *, hide_values: bool = True) -> Netlist:
    """The card netlist of a grid circuit; symbol-only elements get <Empty> when hide_values."""
    nets = point_nets(circuit)
    net = Netlist()
    ends: dict[str, tuple[str, str]] = {}
    for e in circuit["edges"]:
        a, b = nets[tuple(e["a"])], nets[tuple(e["b"])]
        meter = e.get("meter") or ""
        if meter.startswith("U"):
            ends[meter] = (a, b)
            net.measures.append(Measure(meter, f"v({a},{b})"))
    controls = []
    for e in circuit["edges"]:
        kind = e["kind"]
        a, b = nets[tuple(e["a"])], nets[tuple(e["b"])]
        meter = e.get("meter") or ""
        far = b
        if meter.startswith("I"):
            vi = "VI" + meter[1:]
            if kind in (WIRE, OPEN):
                net.elements.append(Element(vi, (a, b), "0"))
            else:
                far = f"N{a}{b}"
                controls.append(Element(vi, (far, b), "0"))
            net.measures.append(Measure(meter, f"i({vi})"))
        if kind in (WIRE, OPEN):
            continue
        nodes = (far, a) if e.get("flip") else (a, far)
        value = e["value"] if (e.get("shown", True) or not hide_values) else EMPTY
        if kind in "EG":
            net.elements.append(Element(e["name"], nodes, value, ends[e["ctrl"]]))
        elif kind in "FH":
            net.elements.append(Element(e["name"], nodes, value, ("VI" + e["ctrl"][1:],)))
        else:
            net.elements.append(Element(e["name"], nodes, value))
        net.elements.extend(controls)
        controls = []
    # keep measures in name order: U meters then I meters, each by number
    net.measures.sort(key=lambda m: (m.name[0] != "U", int(m.name[1:])))
    return net
