"""The learned PPM's target text: a circuit's netlist as canonical word tokens, one line per grid edge.

Line i describes grid edge i in grid order (each point's right edge `h`, then its down edge `v`):
`r c h|v KIND [+|-] [VALUE] [CTRL] [mU|mI] ;` - the flip sign only for polar sources, the printed value
(or <Empty>) and the controlling meter only for elements. The header is `ROWS COLS ;`. Net numbers,
element names and meter cards follow from the lines by the generator's own rules (`to_netlist`), so
this text and the card netlist carry the same circuit.
"""

from __future__ import annotations

from toolkit.maps.circuit import OPEN, WIRE, assign_names, grid_edges
from toolkit.maps.netlist import EMPTY, parse_value

POLAR = {"V", "I", "E", "G", "F", "H"}
KINDS = (WIRE, OPEN, "R", "V", "I", "C", "L", "E", "G", "F", "H")
MAX_SIDE = 6


def grid_text(layout: dict, components: list[dict]) -> str:
    """The canonical token text of a circuit record's layout and components."""
    lines = [f"{layout['rows']} {layout['cols']}"]
    for (a, b), e in zip(grid_edges(layout["rows"], layout["cols"]), components, strict=True):
        kind = e["kind"]
        words = [str(a[0]), str(a[1]), "h" if a[0] == b[0] else "v", kind]
        if kind not in (WIRE, OPEN):
            if kind in POLAR:
                words.append("-" if e.get("flip") else "+")
            words.append(e["value"] if e.get("shown", True) else EMPTY)
            if e.get("ctrl"):
                words.append(e["ctrl"])
        if e.get("meter"):
            words.append("m" + e["meter"][0])
        lines.append(" ".join(words))
    return " ; ".join(lines) + " ;"


def base_words() -> list[str]:
    """The structural words every vocabulary holds (values and control names come from data)."""
    return [str(i) for i in range(MAX_SIDE + 1)] + ["h", "v", "+", "-", "mU", "mI", ";", EMPTY, *KINDS]


def parse_grid_text(text: str) -> dict | None:
    """The grid circuit a token text describes, or None without a readable header.

    Lenient by design (it reads a model's output): an edge without a line is a wire, unknown or
    repeated lines are ignored, and the controlled-source rules are repaired as in the exemplar reader."""
    from toolkit.maps.ppm import _fix_controls

    lines = [ln.split() for ln in text.split(";")]
    lines = [ln for ln in lines if ln]
    if not lines or len(lines[0]) != 2 or not all(w.isdigit() for w in lines[0]):
        return None
    rows, cols = int(lines[0][0]), int(lines[0][1])
    if not (2 <= rows <= MAX_SIDE and 2 <= cols <= MAX_SIDE):
        return None
    by_edge: dict[tuple, list[str]] = {}
    for words in lines[1:]:
        if len(words) >= 4 and words[0].isdigit() and words[1].isdigit():
            by_edge.setdefault((int(words[0]), int(words[1]), words[2]), words[3:])
    edges = []
    for a, b in grid_edges(rows, cols):
        words = by_edge.get((a[0], a[1], "h" if a[0] == b[0] else "v"), [WIRE])
        edges.append(_edge(a, b, words))
    assign_names(edges)
    _fix_controls(edges)
    return {"rows": rows, "cols": cols, "ground": [rows - 1, 0], "edges": edges}


def _is_number(word: str) -> bool:
    try:
        parse_value(word)
    except ValueError:
        return False
    return True


def _edge(a, b, words: list[str]) -> dict:
    kind = words[0] if words[0] in KINDS else WIRE
    rest = words[1:]
    meter = None
    if rest and rest[-1] in ("mU", "mI"):
        meter, rest = rest[-1][1], rest[:-1]
    edge = {"a": list(a), "b": list(b), "kind": kind, "flip": False, "meter": meter}
    if kind in (WIRE, OPEN):
        return edge
    if kind in POLAR and rest and rest[0] in "+-":
        edge["flip"], rest = rest[0] == "-", rest[1:]
    value = rest[0] if rest else EMPTY
    ctrl = rest[1] if len(rest) > 1 else None
    if value != EMPTY and not _is_number(value):  # a misplaced word in the value slot: read as unread
        value = EMPTY
    edge.update(value=value, shown=value != EMPTY, ctrl=ctrl)
    return edge
