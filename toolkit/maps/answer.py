"""Answerers: `rule` (simulation results), `reduce` (series-parallel rules, no SPICE) and `llm`.

All of them read the question text, never its gold fields: the asked quantity and target come from
the wording, symbol-only values from its "Given R2 = 4.7kΩ" clause.
"""

from __future__ import annotations

import json
import re

from toolkit.maps.netlist import EMPTY, Element, Netlist, parse_value
from toolkit.maps.questions import quantity

_ASK = [  # the dynamic forms first: their wording also says "meter U1 read"
    ("tran", re.compile(r"meter\s+([UI]\d+)\s+read at t\s*=", re.IGNORECASE)),
    ("ac", re.compile(r"amplitude of meter\s+([UI]\d+)", re.IGNORECASE)),
    ("meter", re.compile(r"meter\s+([UI]\d+)\s+read", re.IGNORECASE)),
    ("power", re.compile(r"power does\s+([A-Z]+\d+)\s+absorb", re.IGNORECASE)),
    ("req", re.compile(r"resistance between the two ends of\s+([A-Z]+\d+)", re.IGNORECASE)),
]
_GIVEN = re.compile(r"\b([A-Z]+\d+)\s*=\s*([-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?:meg|[tgkmunpf])?)", re.IGNORECASE)
UNITS = {"meter_U": "V", "meter_I": "A", "power": "W", "req": "Ω"}


def read_question(text: str) -> tuple[str, str] | None:
    """(kind, target) from the wording, or None when the question is not one the rules know."""
    for kind, pattern in _ASK:
        m = pattern.search(text)
        if m:
            return kind, m.group(1)
    return None


_AT = re.compile(r"\bat (t|f) = ([-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?) ?(ms|Hz)\b")


def read_point(text: str) -> float | None:
    """The time (s) or frequency (Hz) a dynamic question asks about."""
    m = _AT.search(text)
    if not m:
        return None
    return float(m.group(2)) * (1e-3 if m.group(3) == "ms" else 1.0)


def given_values(text: str) -> dict[str, str]:
    head = text.split("?")[0]
    return {m.group(1).upper(): m.group(2) for m in _GIVEN.finditer(head)}


def fill_empty(net: Netlist, text: str) -> Netlist | None:
    """<Empty> values filled from the question; None if one is still unknown."""
    given = given_values(text)
    out = Netlist(title=net.title, measures=list(net.measures))
    for e in net.elements:
        value = e.value
        if value == EMPTY:
            value = given.get(e.name.upper())
            if value is None:
                return None
        out.elements.append(Element(e.name, e.nodes, value, e.control))
    return out


def unit_of(kind: str, target: str) -> str:
    return UNITS["meter_" + target[0].upper()] if kind in ("meter", "tran", "ac") else UNITS[kind]


def pick_letter(value: float | None, options: list[str]) -> str | None:
    if value is None or not options:
        return None
    best, best_err = None, float("inf")
    for letter, text in zip("ABCD", options, strict=False):
        try:
            x = parse_value(text)
        except ValueError:
            continue
        err = abs(x - value) / max(abs(value), 1e-12)
        if err < best_err:
            best, best_err = letter, err
    return best


def rule_answer(question: dict, net: Netlist, sim, simulator) -> tuple[float | None, bool, str | None]:
    """(value, used_sim, why-abstained) from the netlist and its simulation (re-run when values were filled)."""
    asked = read_question(question["text"])
    if asked is None:
        return None, False, "unknown question form"
    kind, target = asked
    if net.has_empty:
        net = fill_empty(net, question["text"])
        if net is None:
            return None, False, "a value is <Empty> and the question does not give it"
        sim = None
    if (kind in ("meter", "tran", "ac") and target not in {m.name for m in net.measures}) or (
            kind in ("power", "req") and net.element(target) is None):
        return None, False, f"unknown label {target}"
    if sim is None or not sim.ok:
        sim = simulator.run(net)
    if not sim.ok:
        return None, True, f"simulation failed: {sim.error}"
    try:
        value = quantity(net, sim, kind, target, simulator.run, read_point(question["text"]))
    except (KeyError, ValueError) as exc:
        return None, True, f"cannot compute ({exc})"
    return value, True, None if value is not None else "no value"


def reduce_answer(question: dict, net: Netlist) -> tuple[float | None, str | None]:
    from toolkit.maps.reduce import solve

    asked = read_question(question["text"])
    if asked is None:
        return None, "unknown question form"
    if asked[0] in ("tran", "ac"):
        return None, "no divider rule for transient or AC questions"
    if net.has_empty:
        net = fill_empty(net, question["text"])
        if net is None:
            return None, "a value is <Empty> and the question does not give it"
    return solve(net, *asked)


# ---- LLM answerer -------------------------------------------------------------------------------------

REFINE_PROMPT = ("The SPICE netlist below was read from a circuit diagram; some values are <Empty>. "
                 "Fill them in from the question and reply with the complete netlist in a ```SPICE block.\n\n"
                 "Question: {question}\n\nNetlist:\n{netlist}")
ANSWER_PROMPT = ("Answer the circuit question. Reply with JSON {{\"quantity\": value}} where value is a number "
                 "in SI units.\n\nQuestion: {question}\n\nSPICE netlist of the circuit:\n{netlist}{results}")


def sim_text(sim) -> str:
    lines = [f"{k} = {v:.6g}" for k, v in sim.meters.items()]
    lines += [f"v({k}) = {v:.6g}" for k, v in sorted(sim.voltages.items())]
    lines += [f"i({k}) = {v:.6g}" for k, v in sorted(sim.currents.items())]
    return "\n\nSimulation results (ngspice, DC operating point):\n" + "\n".join(lines)


def parse_spice_block(text: str) -> str | None:
    m = re.search(r"```\s*spice\s*\n(.*?)```", text, re.IGNORECASE | re.DOTALL)
    return m.group(1) if m else None


_LATEX_UNIT = re.compile(r"\\(?:mathrm|text)\s*\{\s*~?\s*([^}]*)\}")


def parse_number(text) -> float | None:
    """A number from an answer: 5, "-0.5 A", "$-0.5 \\mathrm{~A}$", "2.2k", "3 \\times 10^{-3}"."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text)
    if not isinstance(text, str):
        return None
    s = text.replace("$", "").replace("−", "-")
    s = _LATEX_UNIT.sub(lambda m: " " + m.group(1).strip(), s)
    s = re.sub(r"\\(?:times|cdot)\s*10\^\{?([-+]?\d+)\}?", r"e\1", s)
    s = s.replace("{", "").replace("}", "").replace("\\,", "").replace("~", " ")
    m = re.search(r"[-+]?\d+(?:\.\d+)?(?:\s*e[-+]?\d+)?", s)
    if not m:
        return None
    value = float(m.group(0).replace(" ", ""))
    rest = s[m.end():].strip()
    prefix = re.match(r"(meg|[kKmMuμnp])(?=[AVWΩSFHo]|\s|$)", rest)
    if prefix:
        p = prefix.group(1)
        value *= {"meg": 1e6, "k": 1e3, "K": 1e3, "M": 1e6, "m": 1e-3, "u": 1e-6, "μ": 1e-6, "n": 1e-9,
                  "p": 1e-12}[p]
    return value


def parse_answer_json(text: str) -> float | None:
    """The first value of the reply's JSON object (LaTeX braces inside strings are fine)."""
    whole = [text[text.find("{"): text.rfind("}") + 1]] if "{" in text else []
    for chunk in whole + [m.group(0) for m in re.finditer(r"\{[^{}]*\}", text, re.DOTALL)]:
        try:
            data = json.loads(chunk)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and data:
            return parse_number(next(iter(data.values())))
    return None
