"""An exact DC cross-check with lcapy (symbolic nodal analysis), independent of ngspice."""

from __future__ import annotations

from toolkit.maps.netlist import Netlist, parse_value


def lcapy_voltages(net: Netlist) -> dict[str, float]:
    """Node voltages of a DC netlist (R, V, I, E, G, F, H; 0 V ammeters) solved by lcapy."""
    from lcapy import Circuit

    lines = []
    # lcapy resolves an F/H card's controlling source as it reads it: the 0 V ammeters go first (SPICE itself
    # takes the cards in any order, and the generator writes each ammeter after the element it meters)
    for e in sorted(net.elements, key=lambda e: not e.is_ammeter):
        value = f"{parse_value(e.value):.15g}"
        # lcapy takes I and G the other way round from SPICE (whose current runs n+ -> n- inside the source)
        a, b = (e.nodes[1], e.nodes[0]) if e.kind in ("I", "G") else e.nodes
        if e.kind in ("E", "G"):
            lines.append(f"{e.name} {a} {b} {e.control[0]} {e.control[1]} {value}")
        elif e.kind in ("F", "H"):
            lines.append(f"{e.name} {a} {b} {e.control[0]} {value}")
        elif e.kind in ("V", "I") or e.is_ammeter:
            lines.append(f"{e.name} {a} {b} dc {value}")
        else:
            lines.append(f"{e.name} {e.nodes[0]} {e.nodes[1]} {value}")
    cct = Circuit("\n".join(lines))
    out = {}
    for node in net.nets():
        out[node.lower()] = 0.0 if node == "0" else float(cct[node].V.dc.sympy)
    return out
