"""Random grid circuits by tier, with the validity rules of the MAPS v11 generator.

Each edge draws a kind by weight (outer-ring edges are never open), each element a value, and each
edge a meter. Value labels follow the anchor: one draw per circuit decides whether every element shows its
value or none does (p = `show_p`, 0.8 on medium and v11); `labels="element"` draws it per element instead.
A draw is rejected when a grid point has fewer than two connections, an element's ends merge through
wires, a meter conflicts with its edge (wire+U, open+I, V/E/H+U, I/G/F+I), a controlled source has no
meter of its kind, the circuit has no independent source or falls apart, or its DC operating point is not
unique: current sources (I/G/F, and capacitors, open at DC) that form a cut set, or voltage sources
(V/E/H, ammeters, and inductors, shorts at DC) that close a loop.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from toolkit.maps.circuit import OPEN, WIRE, UnionFind, assign_names, grid_edges, on_outer_ring, point_nets

E12 = ("1", "1.2", "1.5", "1.8", "2.2", "2.7", "3.3", "3.9", "4.7", "5.6", "6.8", "8.2")


@dataclass(frozen=True)
class Tier:
    sides: tuple[int, ...]
    side_weights: tuple[int, ...]
    kinds: dict[str, int]
    meters: tuple[int, int] | None  # (min, max) meters per circuit; None: per-edge draw 10:1:1
    show_p: float
    values: str  # "e12" or "int"


BASE = {WIRE: 10, "V": 5, "I": 5, "R": 20, OPEN: 5}
TIERS = {
    "small": Tier((2, 3), (1, 1), BASE, (1, 2), 1.0, "e12"),
    "medium": Tier((2, 3), (1, 2), {**BASE, "E": 2, "G": 2, "F": 2, "H": 2}, (1, 3), 0.8, "e12"),
    "dynamic": Tier((2, 3), (1, 2), {**BASE, "C": 3, "L": 3}, (1, 2), 1.0, "e12"),
    "v11": Tier((2, 3, 4, 5, 6), (3, 6, 6, 2, 1), {**BASE, "C": 0, "L": 0, "E": 2, "G": 2, "F": 2, "H": 2},
                None, 0.8, "int"),
}
UNITS = {"R": "Ω", "V": "V", "I": "A", "C": "F", "L": "H", "E": "", "G": "S", "F": "", "H": "Ω"}
U_CONFLICT, I_CONFLICT = {WIRE, "V", "E", "H"}, {OPEN, "I", "G", "F"}
CURRENT_LIKE, VOLTAGE_LIKE = {"I", "G", "F", "C"}, {"V", "E", "H", "L", WIRE}  # at DC; WIRE here: an ammeter


def draw_value(kind: str, tier: Tier, rng: random.Random) -> str:
    if tier.values == "int":
        prefix = rng.choices(["", "k", "m"], weights=[10, 4, 2])[0]
        return f"{rng.randint(1, 99)}{prefix}"
    if kind == "R":
        return _e12_resistor(rng)
    if kind == "V":
        return str(rng.randint(1, 24))
    if kind == "I":
        return rng.choice(E12) + "m"
    if kind == "C":
        return rng.choice(E12) + "u"
    if kind == "L":
        return rng.choice(E12) + "m"
    return str(rng.randint(1, 9))  # gains of E/G/F/H


def _e12_resistor(rng: random.Random) -> str:
    mantissa = float(rng.choice(E12)) * rng.choice([1, 10, 100])
    text = f"{mantissa:g}"
    return text + rng.choice(["", "k"])


def _sides(tier: Tier, rng: random.Random) -> tuple[int, int]:
    if tier is TIERS["small"]:
        return (2, rng.choice([2, 3])) if rng.random() < 0.5 else (rng.choice([2, 3]), 2)
    rows, cols = (rng.choices(tier.sides, weights=tier.side_weights)[0] for _ in range(2))
    return rows, cols


LABELS = ("circuit", "element")


def draw_circuit(tier_name: str, rng: random.Random, max_tries: int = 2000, *, labels: str = "circuit") -> dict:
    """One valid grid circuit (without id/netlist/image): rows, cols, ground, edges. `labels`: whether the
    values shown are decided once per circuit (the anchor) or per element."""
    tier = TIERS[tier_name]
    if labels not in LABELS:
        raise ValueError(f"labels must be one of {LABELS}, not {labels!r}")
    for _ in range(max_tries):
        circuit = _draw_once(tier, rng, labels)
        if circuit is not None and valid(circuit):
            circuit["tier"] = tier_name
            return circuit
    raise RuntimeError(f"no valid {tier_name} circuit in {max_tries} draws")


def _draw_once(tier: Tier, rng: random.Random, labels: str = "circuit") -> dict | None:
    rows, cols = _sides(tier, rng)
    show_all = rng.random() < tier.show_p  # the anchor's one draw per circuit (use_value_annotation)
    kinds, weights = zip(*[(k, w) for k, w in tier.kinds.items() if w > 0], strict=True)
    edges = []
    for a, b in grid_edges(rows, cols):
        outer = on_outer_ring(a, b, rows, cols)
        while True:
            kind = rng.choices(kinds, weights=weights)[0]
            if not (kind == OPEN and outer):
                break
        edge = {"a": list(a), "b": list(b), "kind": kind, "flip": rng.random() < 0.5, "meter": None}
        if kind not in (WIRE, OPEN):
            edge["value"] = draw_value(kind, tier, rng)
            edge["shown"] = show_all if labels == "circuit" else rng.random() < tier.show_p
        edges.append(edge)
    if not _place_meters(edges, tier, rng):
        return None
    if not _name_and_control(edges, rng):
        return None
    return {"rows": rows, "cols": cols, "ground": [rows - 1, 0], "edges": edges}


def _place_meters(edges: list[dict], tier: Tier, rng: random.Random) -> bool:
    if tier.meters is None:
        for e in edges:
            e["meter"] = rng.choices([None, "U", "I"], weights=[10, 1, 1])[0]
    else:
        count = rng.randint(*tier.meters)
        for e in rng.sample(edges, min(count, len(edges))):
            e["meter"] = rng.choice(["U", "I"])
    for e in edges:
        if (e["meter"] == "U" and e["kind"] in U_CONFLICT) or (e["meter"] == "I" and e["kind"] in I_CONFLICT):
            return False
    return True


def _name_and_control(edges: list[dict], rng: random.Random) -> bool:
    assign_names(edges)
    u_meters = [e["meter"] for e in edges if (e["meter"] or "").startswith("U")]
    i_meters = [e["meter"] for e in edges if (e["meter"] or "").startswith("I")]
    for e in edges:
        if e["kind"] in ("E", "G"):
            if not u_meters:
                return False
            e["ctrl"] = rng.choice(u_meters)
        elif e["kind"] in ("F", "H"):
            if not i_meters:
                return False
            e["ctrl"] = rng.choice(i_meters)
    return True


def valid(circuit: dict) -> bool:
    """The structural rules (the simulator later rejects singular circuits)."""
    rows, cols = circuit["rows"], circuit["cols"]
    degree = {(r, c): 0 for r in range(rows) for c in range(cols)}
    for e in circuit["edges"]:
        if e["kind"] != OPEN:
            degree[tuple(e["a"])] += 1
            degree[tuple(e["b"])] += 1
    if min(degree.values()) < 2:
        return False
    nets = point_nets(circuit)
    adjacency: dict[str, set[str]] = {}
    has_source = False
    for e in circuit["edges"]:
        if e["kind"] in (WIRE, OPEN):
            continue
        a, b = nets[tuple(e["a"])], nets[tuple(e["b"])]
        if a == b and not (e.get("meter") or "").startswith("I"):
            return False  # both ends on one net: the element is shorted out
        has_source |= e["kind"] in "VI"
        adjacency.setdefault(a, set()).add(b)
        adjacency.setdefault(b, set()).add(a)
    for e in circuit["edges"]:
        if e["kind"] == WIRE and (e.get("meter") or "").startswith("I"):
            a, b = nets[tuple(e["a"])], nets[tuple(e["b"])]
            adjacency.setdefault(a, set()).add(b)
            adjacency.setdefault(b, set()).add(a)
    if not has_source or not adjacency:
        return False
    seen, todo = set(), [next(iter(adjacency))]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(adjacency[n] - seen)
    return seen == set(nets.values()) and dc_determined(circuit, nets)


def dc_determined(circuit: dict, nets: dict) -> bool:
    """Every net reaches ground without passing a current source, and no loop is made of voltage sources
    alone: otherwise KCL around the cut (or KVL around the loop) fixes the sources' values and leaves node
    voltages (or loop currents) free, and a simulator returns an arbitrary gmin-dependent answer or none."""
    conducting, voltage = UnionFind(), UnionFind()
    for e in circuit["edges"]:
        metered = (e.get("meter") or "").startswith("I")
        if e["kind"] == OPEN or (e["kind"] == WIRE and not metered):
            continue  # unmetered wires are already merged into nets
        a, b = nets[tuple(e["a"])], nets[tuple(e["b"])]
        if e["kind"] not in CURRENT_LIKE:
            conducting.join(a, b)
        if e["kind"] in VOLTAGE_LIKE:
            if voltage.find(a) == voltage.find(b):
                return False
            voltage.join(a, b)
    return len({conducting.find(n) for n in set(nets.values())}) == 1
