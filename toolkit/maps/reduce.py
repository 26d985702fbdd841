"""The no-simulation baseline: series-parallel reduction and divider rules on networkx, no SPICE.

It handles resistor networks with one independent source (plus 0 V ammeters as wires): the network
seen by the source (or, for R_eq, by the asked resistor's ends with sources off) is reduced to one
resistance by series and parallel steps, and voltages and currents flow back down the reduction tree
by the divider rules. Controlled sources, several sources, or a network that does not reduce (a
Wheatstone bridge) make it abstain.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolkit.maps.netlist import Netlist, parse_value


@dataclass
class Branch:
    """A two-terminal piece between nets u -> v: a resistor leaf, or a series/parallel group."""

    u: str
    v: str
    r: float
    how: str = "leaf"  # leaf, series, parallel
    name: str | None = None
    parts: list[tuple[Branch, int]] = field(default_factory=list)  # (child, +1 if child runs u->v else -1)


def _merge_shorts(net: Netlist, shorted: set[str]) -> dict[str, str]:
    parent: dict[str, str] = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            x = parent[x]
        return x

    for e in net.elements:
        if e.name in shorted:
            a, b = find(e.nodes[0]), find(e.nodes[1])
            if a != b:
                parent[a] = b
    nets = {n for e in net.elements for n in e.nodes}
    return {n: find(n) for n in nets}


def reduce_between(branches: list[Branch], a: str, b: str) -> Branch | None:
    """Reduce to one branch a -> b, or None when series/parallel steps cannot (a bridge)."""
    branches = [br for br in branches if br.u != br.v]
    while True:
        changed = False
        degree: dict[str, list[Branch]] = {}
        for br in branches:
            degree.setdefault(br.u, []).append(br)
            degree.setdefault(br.v, []).append(br)
        for node, incident in degree.items():  # dangling pieces carry no current
            if node not in (a, b) and len(incident) == 1:
                branches.remove(incident[0])
                changed = True
                break
        if changed:
            continue
        groups: dict[frozenset, list[Branch]] = {}
        for br in branches:
            groups.setdefault(frozenset((br.u, br.v)), []).append(br)
        for group in groups.values():
            if len(group) > 1:
                u, v = group[0].u, group[0].v
                g = sum(1.0 / br.r if br.r > 0 else float("inf") for br in group)
                r = 0.0 if g == float("inf") else 1.0 / g
                merged = Branch(u, v, r, "parallel", parts=[(br, 1 if br.u == u else -1) for br in group])
                branches = [br for br in branches if br not in group] + [merged]
                changed = True
                break
        if changed:
            continue
        for node, incident in degree.items():
            if node not in (a, b) and len(incident) == 2:
                x, y = incident
                start = x.v if x.u == node else x.u
                end = y.v if y.u == node else y.u
                parts = [(x, 1 if x.u == start else -1), (y, 1 if y.u == node else -1)]
                merged = Branch(start, end, x.r + y.r, "series", parts=parts)
                branches = [br for br in branches if br is not x and br is not y] + [merged]
                changed = True
                break
        if not changed:
            break
    if len(branches) == 1 and {branches[0].u, branches[0].v} == {a, b}:
        return branches[0]
    return None


def distribute(br: Branch, voltage: float, out: dict[str, float]) -> None:
    """Leaf name -> voltage across it (u -> v), given `voltage` across `br` (u -> v)."""
    if br.how == "leaf":
        out[br.name] = voltage
        return
    if br.how == "parallel":
        for child, sign in br.parts:
            distribute(child, sign * voltage, out)
        return
    current = voltage / br.r if br.r else 0.0
    for child, sign in br.parts:
        distribute(child, sign * current * child.r, out)


def solve(net: Netlist, kind: str, target: str) -> tuple[float | None, str | None]:
    """(value, None) or (None, reason it abstains)."""
    if any(e.kind in "EGFHCL" for e in net.elements):
        return None, "controlled or reactive elements are outside the divider rules"
    values = {e.name: parse_value(e.value) for e in net.elements}
    sources = [e for e in net.elements if e.kind in "VI" and not e.is_ammeter]
    ammeters = {e.name for e in net.elements if e.is_ammeter}
    if kind == "req":
        target_e = net.element(target)
        if target_e is None or target_e.kind != "R":
            return None, f"unknown label {target}"
        shorted = ammeters | {e.name for e in sources if e.kind == "V"}
        where = _merge_shorts(net, shorted)
        branches = [Branch(where[e.nodes[0]], where[e.nodes[1]], values[e.name], name=e.name)
                    for e in net.elements if e.kind == "R"]
        a, b = where[target_e.nodes[0]], where[target_e.nodes[1]]
        root = reduce_between(branches, a, b)
        return (root.r, None) if root is not None else (None, "not series-parallel between the asked nodes")
    if len(sources) != 1:
        return None, f"{len(sources)} independent sources (the divider rules take one)"
    src = sources[0]
    where = _merge_shorts(net, ammeters)
    p, n = where[src.nodes[0]], where[src.nodes[1]]
    branches = [Branch(where[e.nodes[0]], where[e.nodes[1]], values[e.name], name=e.name)
                for e in net.elements if e.kind == "R"]
    root = reduce_between(branches, p, n)
    if root is None or (src.kind == "V" and root.r == 0):
        return None, "the load is not series-parallel"
    v_pn = values[src.name] if src.kind == "V" else values[src.name] * root.r * -1
    # an I source pushes its current out of n- into the load, so v(p,n) = -I * R_load
    drops: dict[str, float] = {}
    distribute(root, v_pn if root.u == p else -v_pn, drops)
    i_src = v_pn / root.r  # current leaving p into the load
    return _read(net, kind, target, src, drops, values, where, v_pn, i_src)


def _read(net, kind, target, src, drops, values, where, v_pn, i_src):
    def element_drop(name):
        e = net.element(name)
        if e.kind == "R":
            return drops.get(e.name)
        if e.name == src.name:
            return v_pn
        return None

    if kind == "power":
        e = net.element(target)
        if e is None:
            return None, f"unknown label {target}"
        if e.kind == "R":
            v = drops.get(e.name)
            return (v * v / values[e.name], None) if v is not None else (None, "resistor outside the load")
        if e.name == src.name:
            return (-v_pn * i_src, None)
        return None, "no rule for this element"
    meter = next((m for m in net.measures if m.name == target), None)
    if meter is None:
        return None, f"unknown label {target}"
    if meter.expr.startswith("v("):
        a, b = (where.get(x, x) for x in meter.nodes)
        for e in net.elements:  # a meter across one element
            if e.kind != "VI" and {where.get(e.nodes[0]), where.get(e.nodes[1])} == {a, b}:
                d = element_drop(e.name)
                if d is not None:
                    return (d if where[e.nodes[0]] == a else -d), None
        return None, "the meter does not span one element of the load"
    vi = net.element(meter.nodes[0])
    for e in net.elements:  # the element in series with the ammeter shares its mid node
        if e.kind == "R" and vi.nodes[0] in e.nodes:
            d = drops.get(e.name)
            if d is None:
                break
            current = d / values[e.name]  # flows e.nodes[0] -> e.nodes[1]
            return (current if e.nodes[1] == vi.nodes[0] else -current), None
        if e.name == src.name and vi.nodes[0] in e.nodes:
            return (-i_src if e.nodes[1] == vi.nodes[0] else i_src), None
    return None, "the ammeter is not in series with one element"
