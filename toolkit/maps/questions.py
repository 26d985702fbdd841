"""Questions about a circuit with gold answers from ngspice on the gold netlist, and four options.

Kinds: `meter` (the reading of U<l>/I<l>), `power` (power absorbed by a named R/V/I element) and
`req` (resistance between the two ends of a named resistor with independent sources off). Circuits
with capacitors or inductors also get `tran` (a meter's reading at time t after the DC sources switch
on, every capacitor uncharged and inductor current zero: ngspice `.tran ... uic`) and `ac` (a meter's
amplitude when every independent source is an AC source of its printed amplitude, all in phase, at
frequency f: ngspice `.ac`). Symbol-only elements have their values given in the question text, as in
the anchor's problems.
"""

from __future__ import annotations

import random

from toolkit.maps.netlist import Element, Netlist, format_value, parse_value
from toolkit.maps.simulate import SimResult

UNITS = {"meter_U": "V", "meter_I": "A", "power": "W", "req": "Ω"}
METER_KINDS = ("meter", "tran", "ac")  # questions whose answer is a meter reading
TIMES = (1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3)  # seconds after switch-on
FREQS = (10.0, 100.0, 1e3, 1e4)  # Hz
VALUE_UNITS = {"R": "Ω", "V": "V", "I": "A", "C": "F", "L": "H", "G": "S", "H": "Ω", "E": "", "F": ""}


def element_voltage(sim: SimResult, e: Element) -> float:
    return sim.voltages.get(e.nodes[0].lower(), 0.0) - sim.voltages.get(e.nodes[1].lower(), 0.0)


def absorbed_power(net: Netlist, sim: SimResult, name: str) -> float:
    """Power absorbed by R, V or I element `name` (passive sign convention)."""
    e = net.element(name)
    v = element_voltage(sim, e)
    if e.kind == "R":
        return v * v / parse_value(e.value)
    if e.kind == "V":
        return v * sim.currents[e.name.lower()]  # SPICE: current into the + node through the source
    if e.kind == "I":
        return v * parse_value(e.value)  # SPICE: the current runs n+ -> n- through the source
    raise ValueError(f"no power rule for {e.kind}")


def req_netlist(net: Netlist, name: str) -> Netlist | None:
    """Independent sources off, a 1 A test source across `name`: v(+,-) is then the resistance."""
    if any(e.kind in "EGFH" for e in net.elements):
        return None
    target = net.element(name)
    out = Netlist(title=net.title)
    for e in net.elements:
        if e.kind == "I":
            continue
        if e.kind == "V":
            out.elements.append(Element(e.name, e.nodes, "0"))
        else:
            out.elements.append(Element(e.name, e.nodes, e.value, e.control))
    a, b = target.nodes
    out.elements.append(Element("Itest", (b, a), "1"))
    return out


def remove_resistor(net: Netlist, name: str) -> Netlist:
    out = Netlist(title=net.title, measures=list(net.measures))
    out.elements = [e for e in net.elements if e.name != name]
    return out


def given_text(circuit: dict) -> str:
    hidden = [e for e in circuit["edges"] if e.get("name") and not e.get("shown", True)]
    if not hidden:
        return ""
    parts = [f"{e['name']} = {e['value']}{VALUE_UNITS[e['kind']]}" for e in hidden]
    return "Given " + ", ".join(parts) + ". "


def ask(kind: str, target: str, at: float | None = None) -> str:
    if kind == "tran":
        return ("With every capacitor uncharged and every inductor current zero when the sources switch on at "
                f"t = 0, what does meter {target} read at t = {at * 1e3:g} ms?")
    if kind == "ac":
        return ("With every independent source an AC source of its printed amplitude (all in phase) at "
                f"f = {at:g} Hz, what is the amplitude of meter {target}?")
    if kind == "meter":
        return f"What does meter {target} read?"
    if kind == "power":
        return f"What power does {target} absorb?"
    return f"With the independent sources off, what is the resistance between the two ends of {target}?"


def ac_netlist(net: Netlist, meter: str) -> tuple[Netlist, str]:
    """Sources as in-phase AC sources of their printed amplitude, and the trace that reads `meter`'s amplitude
    (a U meter through a unit VCVS to ground, since traces hold magnitudes)."""
    out = Netlist(title=net.title)
    for e in net.elements:
        value = f"DC 0 AC {e.value}" if e.kind in "VI" and not e.is_ammeter else e.value
        out.elements.append(Element(e.name, e.nodes, value, e.control))
    m = next(x for x in net.measures if x.name == meter)
    if m.expr.startswith("v("):
        nodes = (list(m.nodes) + ["0"])[:2]
        out.elements.append(Element("EPROBE", ("nprobe", "0"), "1", tuple(nodes)))
        return out, "v(nprobe)"
    return out, f"i({m.nodes[0].lower()})"


def dynamic_value(net: Netlist, kind: str, target: str, at: float, run) -> float | None:
    """A meter at time `at` (kind tran) or its amplitude at frequency `at` (kind ac), from ngspice."""
    if target not in {m.name for m in net.measures}:
        return None
    if kind == "tran":
        step = at / 200
        result = run(net, f"tran {step:g} {at:g} 0 {step:g} uic")
        if not result.ok:
            return None
        m = next(x for x in net.measures if x.name == target)
        last = {k[2:-1]: v[-1] for k, v in result.traces.items() if k.startswith(("v(", "i(")) and v}
        if m.expr.startswith("v("):
            a, *rest = [n.lower() for n in m.nodes]
            return last.get(a, 0.0) - (last.get(rest[0], 0.0) if rest else 0.0)
        return last.get(m.nodes[0].lower())
    probe_net, trace = ac_netlist(net, target)
    result = run(probe_net, f"ac lin 1 {at:g} {at:g}")
    if not result.ok or not result.traces.get(trace):
        return None
    return result.traces[trace][0]


def quantity(net: Netlist, sim: SimResult, kind: str, target: str, run, at: float | None = None) -> float | None:
    """The asked value from a simulation (`run(netlist[, analysis])` simulates extra netlists such as R_eq's)."""
    if kind in ("tran", "ac"):
        return dynamic_value(net, kind, target, at, run) if at else None
    if kind == "meter":
        return sim.meters.get(target)
    if kind == "power":
        return absorbed_power(net, sim, target)
    probe = req_netlist(net, target)
    if probe is None:
        return None
    result = run(probe)
    if not result.ok:
        return None
    e = net.element(target)
    return element_voltage(result, e)


def candidates(circuit: dict, net: Netlist, rng: random.Random) -> list[tuple[str, str]]:
    out = [("meter", m.name) for m in net.measures]
    if net.measures and any(e.kind in "CL" for e in net.elements):  # reactive circuits: dynamics first
        dynamic = [(kind, rng.choice(net.measures).name) for kind in ("tran", "ac")]
        rng.shuffle(out)
        return dynamic + out
    named = [e for e in net.elements if e.kind in "RVI" and not e.is_ammeter]
    for e in rng.sample(named, min(2, len(named))):
        out.append(("power", e.name))
    resistors = [e for e in net.elements if e.kind == "R"]
    if resistors:
        out.append(("req", rng.choice(resistors).name))
    return out


def make_options(value: float, distractors: list[float], rng: random.Random) -> tuple[list[str], str]:
    """Four distinct options: the answer, a sign flip, a x10 slip and one more (fallbacks keep them distinct)."""
    picks = [value]
    for x in [*distractors, value * 10, -value, value / 10, value * 2, value + 1, value - 1]:
        if len(picks) == 4:
            break
        if all(abs(x - p) > 1e-6 * max(1.0, abs(p)) for p in picks):
            picks.append(x)
    step = abs(value) or 1.0
    while len(picks) < 4:
        picks.append(value + step * len(picks) * 1.5)
    order = list(range(4))
    rng.shuffle(order)
    options = [format_value(picks[i]) for i in order]
    return options, "ABCD"[order.index(0)]


def build_questions(circuit: dict, net_full: Netlist, sim: SimResult, run, rng: random.Random,
                    per_circuit: int = 2) -> list[dict]:
    """Question records (without id) for one circuit; `run(netlist)` simulates helper netlists."""
    out = []
    picks = candidates(circuit, net_full, rng)
    if picks and picks[0][0] != "tran":
        rng.shuffle(picks)
    for kind, target in picks:
        if len(out) == per_circuit:
            break
        at = rng.choice(TIMES) if kind == "tran" else rng.choice(FREQS) if kind == "ac" else None
        value = quantity(net_full, sim, kind, target, run, at)
        if value is None or value != value:
            continue
        distract = [-value, value * 10]
        resistors = [e.name for e in net_full.elements if e.kind == "R" and e.name != target]
        if resistors:
            alt = remove_resistor(net_full, rng.choice(resistors))
            alt_sim = run(alt)
            if alt_sim.ok:
                alt_value = (alt_sim.meters.get(target) if kind == "meter"
                             else quantity(alt, alt_sim, kind, target, run, at))
                if alt_value is not None:
                    distract.append(alt_value)
        options, letter = make_options(value, distract, rng)
        unit = UNITS["meter_" + target[0]] if kind in METER_KINDS else UNITS[kind]
        record = {"text": given_text(circuit) + ask(kind, target, at), "kind": kind, "target": target,
                  "value": value, "unit": unit, "options": options, "letter": letter}
        if at is not None:
            record["at"] = at
        out.append(record)
    return out
