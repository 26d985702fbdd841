import random

import pytest

from toolkit.maps.circuit import to_netlist
from toolkit.maps.equiv import equivalent
from toolkit.maps.generate import draw_circuit
from toolkit.maps.netlist import Element, Netlist, parse_netlist
from toolkit.maps.reduce import solve

BASE = """V1 1 0 10
R1 1 2 1k
R2 2 N30 2.2k
VI1 N30 0 0
E1 3 0 2 0 4
R3 3 0 470
.control
op
print v(2,0) ; measurement of U1
print i(VI1) ; measurement of I1
.endc
"""


def relabel(net: Netlist, mapping: dict[str, str], order: list[int]) -> Netlist:
    out = Netlist(title=net.title)
    for i in order:
        e = net.elements[i]
        out.elements.append(Element(e.name, tuple(mapping.get(n, n) for n in e.nodes), e.value,
                                    tuple(mapping.get(n, n) for n in e.control) if e.kind in "EG" else e.control))
    for m in net.measures:
        expr = m.expr
        if expr.startswith("v("):
            a, b = m.nodes
            expr = f"v({mapping.get(a, a)},{mapping.get(b, b)})"
        out.measures.append(type(m)(m.name, expr))
    return out


def test_equivalence_survives_relabelling_and_permutation():
    gold = parse_netlist(BASE)
    moved = relabel(gold, {"1": "7", "2": "5", "3": "9", "N30": "X"}, [5, 3, 1, 0, 4, 2])
    moved.elements[2].value = "1000"  # R1 = 1k written another way
    assert equivalent(moved, gold)


def test_resistor_orientation_does_not_matter_but_source_polarity_does():
    gold = parse_netlist(BASE)
    swapped = parse_netlist(BASE.replace("R1 1 2 1k", "R1 2 1 1k"))
    assert equivalent(swapped, gold)
    assert not equivalent(parse_netlist(BASE.replace("V1 1 0 10", "V1 0 1 10")), gold)
    assert not equivalent(parse_netlist(BASE.replace("E1 3 0 2 0 4", "E1 3 0 0 2 4")), gold)


def test_value_flip_breaks_equivalence():
    assert not equivalent(parse_netlist(BASE.replace("2.2k", "2.7k")), parse_netlist(BASE))
    assert not equivalent(parse_netlist(BASE.replace("R3 3 0 470", "R3 3 0 <Empty>")), parse_netlist(BASE))


def test_unread_ammeter_is_a_wire():
    with_meter = parse_netlist("V1 1 0 5\nR1 1 N12 1k\nVI1 N12 2 0\nR2 2 0 1k\n")
    plain = parse_netlist("V1 1 0 5\nR1 1 2 1k\nR2 2 0 1k\n")
    assert equivalent(with_meter, plain)


def test_generated_circuits_equal_themselves_relabelled():
    rng = random.Random(5)
    for _ in range(10):
        net = to_netlist(draw_circuit("medium", rng))
        nets = [n for n in net.nets() if n != "0"]
        shuffled = nets[:]
        rng.shuffle(shuffled)
        order = list(range(len(net.elements)))
        rng.shuffle(order)
        assert equivalent(relabel(net, dict(zip(nets, shuffled, strict=True)), order), net)


def test_reducer_divider_and_bridge():
    divider = parse_netlist(BASE.replace("E1 3 0 2 0 4\nR3 3 0 470\n", ""))
    value, why = solve(divider, "meter", "U1")
    assert why is None and value == pytest.approx(10 * 2.2 / 3.2)
    value, _ = solve(divider, "meter", "I1")
    assert value == pytest.approx(10 / 3200)
    assert solve(divider, "req", "R1")[0] == pytest.approx(1000 * 2200 / 3200)
    bridge = parse_netlist("""V1 1 0 10
R1 1 2 1k
R2 1 3 2k
R3 2 0 3k
R4 3 0 4k
R5 2 3 5k
""")
    assert solve(bridge, "power", "R5") == (None, "the load is not series-parallel")
    across = parse_netlist(bridge.text().replace("V1 1 0 10", "I1 1 0 1m\nR6 1 0 10k"))
    assert solve(across, "req", "R6") == (None, "not series-parallel between the asked nodes")
    assert solve(parse_netlist(BASE), "meter", "U1")[0] is None  # a controlled source: abstain
