"""SPICE netlists in the MAPS card format: parse, validate, write, and read SPICE values.

Cards: `R/C/L/V/I<k> n1 n2 value`, `E/G<k> n+ n- nc+ nc- gain`, `F/H<k> n+ n- VI<m> gain`; a current
meter is a 0 V source `VI<l>` on a mid node. Measurements live in the `.control` block as
`print v(a,b) ; measurement of U<l>` and `print i(VI<l>) ; measurement of I<l>`. A voltmeter to ground is
printed as the anchor's generator prints it: `v(n)` (from n to ground) or `-v(n)` (from ground to n); the
parser reads `-v(n)` as `v(0,n)` and the writer prints `v(0,n)` back as `-v(n)`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from toolkit.core.errors import InputError

EMPTY = "<Empty>"
TWO_TERMINAL = set("RCLVI")
VOLTAGE_CONTROLLED = set("EG")
CURRENT_CONTROLLED = set("FH")
KINDS = TWO_TERMINAL | VOLTAGE_CONTROLLED | CURRENT_CONTROLLED
TITLE = ".title Active DC Circuit"

# SPICE scale suffixes, case-insensitive: M is milli and MEG mega.
SCALE = {"t": 1e12, "g": 1e9, "meg": 1e6, "k": 1e3, "m": 1e-3, "u": 1e-6, "n": 1e-9, "p": 1e-12, "f": 1e-15}
_VALUE = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)(meg|[tgkmunpf])?([a-z]*)$", re.IGNORECASE)
_UNITS = {"", "v", "a", "ohm", "ohms", "f", "h", "s", "hz"}


def parse_value(text: str) -> float:
    """A SPICE number: `4.7k` -> 4700, `1M` -> 1e-3, `2MEG` -> 2e6. Raises ValueError on `4.7kk`."""
    m = _VALUE.match(text.strip())
    if not m or m.group(3).lower() not in _UNITS:
        raise ValueError(f"not a SPICE value: {text!r}")
    scale = SCALE[m.group(2).lower()] if m.group(2) else 1.0
    return float(m.group(1)) * scale


def format_value(x: float) -> str:
    """A short SPICE string for x (the inverse of parse_value up to rounding)."""
    if x == 0:
        return "0"
    for suffix, scale in (("meg", 1e6), ("k", 1e3), ("", 1.0), ("m", 1e-3), ("u", 1e-6)):
        if abs(x) >= scale * 0.9999:
            return f"{x / scale:.6g}{suffix}"
    return f"{x:.6g}"


@dataclass
class Element:
    """One card: name (R1, VI2, ...), nodes in card order, value text, control (nc+, nc-) or VI name."""

    name: str
    nodes: tuple[str, ...]
    value: str
    control: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        return "VI" if self.is_ammeter else self.name[0].upper()

    @property
    def is_ammeter(self) -> bool:
        return self.name.upper().startswith("VI")

    def card(self) -> str:
        return " ".join([self.name, *self.nodes, *self.control, self.value])


@dataclass
class Measure:
    """A meter: U<l> reads v(a,b); I<l> reads the current through 0 V source VI<l>."""

    name: str
    expr: str  # "v(a,b)" or "i(VIl)"

    @property
    def nodes(self) -> tuple[str, ...]:
        inner = self.expr[2:-1]
        return tuple(p.strip() for p in inner.split(","))

    @property
    def printed(self) -> str:
        """The print expression in the anchor's form: a voltage from ground reads `-v(n)`."""
        nodes = self.nodes
        if self.expr.startswith("v(") and len(nodes) == 2 and nodes[0] == "0":
            return f"-v({nodes[1]})"
        return self.expr


@dataclass
class Netlist:
    elements: list[Element] = field(default_factory=list)
    measures: list[Measure] = field(default_factory=list)
    title: str = TITLE

    def element(self, name: str) -> Element | None:
        low = name.lower()
        return next((e for e in self.elements if e.name.lower() == low), None)

    @property
    def has_empty(self) -> bool:
        return any(e.value == EMPTY for e in self.elements)

    def nets(self) -> list[str]:
        seen: dict[str, None] = {}
        for e in self.elements:
            for n in e.nodes + (e.control if e.kind in VOLTAGE_CONTROLLED else ()):
                seen.setdefault(n, None)
        return list(seen)

    def text(self, analysis: str = "op") -> str:
        lines = [self.title, *(e.card() for e in self.elements), ".control", analysis]
        for m in self.measures:
            lines.append(f"print {m.printed} ; measurement of {m.name}")
        lines += [".endc", ".end"]
        return "\n".join(lines) + "\n"


def parse_netlist(text: str, *, source: str = "<netlist>", allow_empty: bool = True) -> Netlist:
    """Parse a netlist; any problem raises InputError naming `source:line` and the field."""
    net = Netlist()
    in_control = False
    lines = text.splitlines()
    for lineno, raw in enumerate(lines, start=1):
        line = raw.strip()
        where = f"{source}:{lineno}"
        if not line or line.startswith("*"):
            continue
        low = line.lower()
        if low.startswith(".title"):
            net.title = line
            continue
        if low.startswith(".control"):
            in_control = True
            continue
        if low.startswith(".endc"):
            in_control = False
            continue
        if low.startswith(".end"):
            break
        if in_control:
            _parse_control(line, net, where)
            continue
        if low.startswith((".subckt", ".model", ".include", ".lib")):
            card = line.split()[0]
            raise InputError(f"{where}: field 'card': '{card}' is not supported (flat R/C/L/V/I/E/G/F/H only)")
        if low.startswith("."):
            continue  # analysis cards (.op/.tran/.ac) are chosen by the simulate command
        net.elements.append(_parse_card(line, where, allow_empty))
    _check_references(net, source)
    return net


def _parse_card(line: str, where: str, allow_empty: bool) -> Element:
    parts = line.split()
    name = parts[0]
    kind = name[0].upper()
    if kind not in KINDS:
        raise InputError(f"{where}: field 'element': unknown element letter '{name[0]}' in '{name}'")
    want = 6 if kind in VOLTAGE_CONTROLLED else 5 if kind in CURRENT_CONTROLLED else 4
    if len(parts) < want:
        raise InputError(f"{where}: field 'nodes': '{name}' needs {want - 2} nodes/controls and a value")
    value = " ".join(parts[want - 1:]) if kind in "VI" else parts[want - 1]
    if kind in "VI" and value.upper().startswith("DC ") and len(value.split()) == 2:
        value = value[3:].strip()
    if value != EMPTY and len(value.split()) > 1 or "(" in value:
        _check_source_spec(value, name, where)
    elif value == EMPTY:
        if not allow_empty:
            raise InputError(f"{where}: field 'value': '{name}' is {EMPTY}; fill the value before simulating")
    else:
        try:
            parse_value(value)
        except ValueError:
            raise InputError(f"{where}: field 'value': '{value}' is not a SPICE number (in '{name}')") from None
    if kind in VOLTAGE_CONTROLLED:
        return Element(name, tuple(parts[1:3]), value, tuple(parts[3:5]))
    if kind in CURRENT_CONTROLLED:
        return Element(name, tuple(parts[1:3]), value, (parts[3],))
    return Element(name, tuple(parts[1:3]), value)


SOURCE_WORDS = {"DC", "AC", "SIN", "PULSE", "PWL", "EXP", "SFFM"}


def _check_source_spec(value: str, name: str, where: str) -> None:
    """A source spec such as `DC 0 AC 1` or `SIN(0 1 1k)`: keywords and SPICE numbers only."""
    for word in value.replace("(", " ").replace(")", " ").split():
        if word.upper() in SOURCE_WORDS:
            continue
        try:
            parse_value(word)
        except ValueError:
            raise InputError(f"{where}: field 'value': '{word}' is not a SPICE number (in '{name}')") from None


def _parse_control(line: str, net: Netlist, where: str) -> None:
    body, _, comment = line.partition(";")
    words = body.split()
    if not words or words[0].lower() != "print":
        return
    expr = "".join(words[1:]).replace(" ", "")
    m = re.search(r"measurement of\s+(\S+)", comment)
    negated = re.fullmatch(r"-v\(([^(),]+)\)", expr, re.IGNORECASE)
    if negated:  # the anchor's voltmeter from ground to n: -v(n) = v(0) - v(n)
        expr = f"v(0,{negated.group(1)})"
    if not re.fullmatch(r"[vi]\([^()]+\)", expr, re.IGNORECASE):
        raise InputError(f"{where}: field 'print': cannot read '{body.strip()}'")
    name = m.group(1) if m else f"M{len(net.measures) + 1}"
    net.measures.append(Measure(name, expr[0].lower() + expr[1:]))


def _check_references(net: Netlist, source: str) -> None:
    names = {e.name.lower() for e in net.elements}
    for e in net.elements:
        if e.kind in CURRENT_CONTROLLED and e.control[0].lower() not in names:
            raise InputError(f"{source}: field 'control': '{e.name}' refers to missing source '{e.control[0]}'")
    for m in net.measures:
        if m.expr.startswith("i(") and m.nodes[0].lower() not in names:
            raise InputError(f"{source}: field 'print': {m.name} reads missing source '{m.nodes[0]}'")


def numeric(net: Netlist) -> dict[str, float]:
    """Element name -> value as a float (raises InputError on <Empty>)."""
    out = {}
    for e in net.elements:
        if e.value == EMPTY:
            raise InputError(f"netlist: field 'value': '{e.name}' is {EMPTY}")
        out[e.name] = parse_value(e.value)
    return out
