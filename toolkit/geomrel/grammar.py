"""Method B, part 1: read an item's text into construction steps with a lark grammar.

Independent of the generator: it sees only the question text. Sentences it cannot read are
returned as unparsed. Besides the generator's phrasings it reads stated relations
("AB ⊥ EF", "AB is parallel to CD") and the "UVWXYZ is a pentagon"-style shape claims.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lark import Lark, Transformer, exceptions

GRAMMAR = r"""
?clause: shape | derived | relation | question
shape: NAME "is" ART? SHAPEWORD (RIGHTAT PT)? ("with" PT PT EQ PT PT)? ("with" PT PT PAR PT PT)?
     | ("triangle"i | "quadrilateral"i) NAME "is" ART? SHAPEWORD
     | "triangle"i NAME "is" "given"
     | "triangle"i NAME "is" "right-angled" "at" PT       -> right_at
     | "triangle"i NAME "is" "equilateral"                 -> equi
     | "in"i "triangle" NAME "," PT PT EQ PT PT          -> iso_in
     | "in"i "trapezoid" NAME "," PT PT "is" "parallel" "to" PT PT -> trap_in
derived: PT "is" "the" "midpoint" "of" ("segment"|"side")? PT PT                     -> midpoint
       | "point"i PT "bisects" "segment" PT PT                                      -> midpoint
       | ("point"i)? PT ("is" "a" "point" "on" | "lies" "on") "segment" PT PT        -> on_segment
       | PT "lies" "on" "the" "extension" "of" PT PT "beyond" PT                     -> extension
       | "extend"i PT PT "beyond" PT "to" "a" "point" PT                             -> extension2
       | PT "is" "the" "foot" "of" "the" "perpendicular" "from" PT "to" "line"? PT PT -> foot
       | "drop"i "a" "perpendicular" "from" PT "to" "line"? PT PT "," "meeting" "it" "at" PT -> foot2
       | ("point"i)? PT "is" MIRROR PT ("about" | "with" "respect" "to") "point" PT -> reflect
       | "line"i PT PT "is" "drawn" "through" PT DIRWORD "to" PT PT                  -> through
       | "through"i PT "," "draw" PT PT DIRWORD "to" PT PT                           -> through2
       | ("point"i)? PT ("is" "a" "point" "on" | "lies" "on") "the" "circle" DIAMETER PT PT -> on_circle
       | ("point"i)? PT "is" ("an" "arbitrary" "point" | "chosen" "anywhere" "in" "the" "plane") -> free
       | PT "is" "the" "centroid" "of" "triangle" PT PT PT                         -> centroid
       | "point"i PT "is" "where" "the" "medians" "of" "triangle" PT PT PT "meet"   -> centroid
relation: PT PT (PAR | PERP) PT PT
        | PT PT "is" DIRWORD "to" PT PT
question: "what"i "is" "the" "positional" "relationship" "between" "line" PT PT "and" "line" PT PT -> q_line
        | "what"i "is" "the" "relationship" "between" "the" "measures" "of" ANG PT PT PT "and" ANG PT PT PT -> q_angle
        | "is"i "point" PT "inside" "or" "outside" SHAPEWORD NAME                   -> q_shape
ART: "a" | "an"
RIGHTAT: /with\s+(the\s+)?right\s+angle\s+at/
MIRROR: /the\s+reflection\s+of|symmetric\s+to/
DIAMETER: /with\s+diameter|whose\s+diameter\s+is/
SHAPEWORD: "triangle" | "right triangle" | "isosceles triangle" | "equilateral triangle" | "parallelogram"
         | "rectangle" | "square" | "rhombus" | "trapezoid" | "pentagon" | "hexagon" | "quadrilateral"
DIRWORD: "parallel" | "perpendicular"
EQ: "="
PAR: "∥" | "//"
PERP: "⊥"
ANG: "∠"
PT: /[A-Z]'?/
NAME: /[A-Z]{3,}/
%import common.WS
%ignore WS
"""

SHAPE_OPS = {"triangle": "triangle", "right triangle": "right_triangle", "isosceles triangle": "isosceles",
             "equilateral triangle": "equilateral", "parallelogram": "parallelogram", "rectangle": "rectangle",
             "square": "square", "rhombus": "rhombus", "trapezoid": "trapezoid", "pentagon": "polygon",
             "hexagon": "polygon", "quadrilateral": "polygon"}
SIDES = {"triangle": 3, "pentagon": 5, "hexagon": 6, "quadrilateral": 4}


@lru_cache(maxsize=1)
def parser() -> Lark:
    return Lark(GRAMMAR, start="clause", parser="earley", lexer="dynamic")


class _ToStep(Transformer):
    def shape(self, kids):
        s = [str(k) for k in kids]
        name = next(k for k in s if len(k) >= 3 and k.isupper())
        word = next((k for k in s if k in SHAPE_OPS), "triangle")
        pts = list(name)
        step = {"op": SHAPE_OPS[word], "pts": pts, "word": word}
        if word in SIDES and len(pts) != SIDES[word]:
            step["bad_count"] = True
        single = [k for k in s if re.fullmatch(r"[A-Z]'?", k)]
        if word == "right triangle" and single:
            b = single[0]
            others = [p for p in pts if p != b]
            step["pts"] = [others[0], b, others[1]]
        if word == "isosceles triangle" and single:
            step["pts"] = _iso(single)
        return step

    def right_at(self, kids):
        name, b = str(kids[0]), str(kids[1])
        others = [p for p in name if p != b]
        return {"op": "right_triangle", "pts": [others[0], b, others[1]]}

    def equi(self, kids):
        return {"op": "equilateral", "pts": list(str(kids[0]))}

    def iso_in(self, kids):
        return {"op": "isosceles", "pts": _iso([str(k) for k in kids[1:] if str(k) != "="])}

    def trap_in(self, kids):
        return {"op": "trapezoid", "pts": list(str(kids[0]))}

    def midpoint(self, k):
        return {"op": "midpoint", "pts": [str(x) for x in k]}

    def on_segment(self, k):
        return {"op": "on_segment", "pts": [str(x) for x in k]}

    def extension(self, k):
        return {"op": "extension", "pts": [str(k[0]), str(k[1]), str(k[2])]}

    def extension2(self, k):
        return {"op": "extension", "pts": [str(k[3]), str(k[0]), str(k[1])]}

    def foot(self, k):
        return {"op": "foot", "pts": [str(x) for x in k]}

    def foot2(self, k):
        return {"op": "foot", "pts": [str(k[3]), str(k[0]), str(k[1]), str(k[2])]}

    def reflect(self, k):
        return {"op": "reflect", "pts": _pts(k)}

    def through(self, k):
        return {"op": str(k[3]), "pts": [str(k[1]), str(k[2]), str(k[4]), str(k[5])]}

    def through2(self, k):
        return {"op": str(k[3]), "pts": [str(k[2]), str(k[0]), str(k[4]), str(k[5])]}

    def on_circle(self, k):
        return {"op": "on_circle", "pts": _pts(k)}

    def free(self, k):
        return {"op": "free", "pts": [str(k[0])]}

    def centroid(self, k):
        return {"op": "centroid", "pts": [str(x) for x in k]}

    def relation(self, k):
        s = [str(x) for x in k]
        kind = "parallel" if any(x in ("∥", "//", "parallel") for x in s) else "perpendicular"
        pts = [x for x in s if re.fullmatch(r"[A-Z]'?", x)]
        return {"op": "given_" + kind, "pts": pts}

    def q_line(self, k):
        s = [str(x) for x in k]
        return {"op": "ask", "domain": "line", "a": s[:2], "b": s[2:]}

    def q_angle(self, k):
        s = [str(x) for x in k if str(x) != "∠"]
        return {"op": "ask", "domain": "angle", "a": s[:3], "b": s[3:]}

    def q_shape(self, k):
        word, name = str(k[1]), str(k[2])
        return {"op": "ask", "domain": "shape", "a": [str(k[0])], "b": [], "shape": list(name),
                "shape_word": word}

    def clause(self, k):
        return k[0]


def _pts(kids) -> list[str]:
    return [str(x) for x in kids if getattr(x, "type", "") == "PT"]


def _iso(single: list[str]) -> list[str]:
    a, b, a2, c = single[:4]
    return [a, b, c] if a == a2 else [b, a, c]


SENTENCE = re.compile(r"(?<=[.?])\s+")


def split_question(question: str) -> tuple[str, list[str]]:
    """The problem body and the option texts of an anchor-style question."""
    body, _, choices = question.partition("Answer choices:")
    options = re.split(r"\s*\b[A-E]\.\s*", " " + choices.strip())
    return body.strip(), [o.strip() for o in options if o.strip()]


CAPITALS = re.compile(r"\b[A-Z]+\b")


def _letters_in_order(text: str) -> tuple[str, dict[str, str]]:
    """The sentence with its point letters renamed A, B, C, ... by first appearance, and the way back. Sentences
    of one template then share a parse (the grammar never depends on which letters a figure uses)."""
    forward: dict[str, str] = {}
    for word in CAPITALS.findall(text):
        for c in word:
            forward.setdefault(c, chr(65 + len(forward)))
    table = str.maketrans(forward)
    renamed = CAPITALS.sub(lambda m: m.group(0).translate(table), text)
    return renamed, {v: k for k, v in forward.items()}


@lru_cache(maxsize=4096)
def _parse_renamed(text: str) -> dict | None:
    try:
        return _ToStep().transform(parser().parse(text))
    except (exceptions.LarkError, StopIteration, ValueError, IndexError):
        return None


def _named_back(value, back: dict[str, str]):
    if isinstance(value, dict):
        return {k: _named_back(v, back) for k, v in value.items()}
    if isinstance(value, list):
        return [_named_back(v, back) for v in value]
    if isinstance(value, str) and value and all(c in back or c == "'" for c in value):
        return "".join(back.get(c, c) for c in value)
    return value


def read(body: str) -> tuple[list[dict], list[str]]:
    """Steps (the question step last) and the sentences that did not parse."""
    steps, unparsed = [], []
    for sentence in SENTENCE.split(body.strip()):
        text = sentence.strip().rstrip(".?").strip()
        if not text:
            continue
        renamed, back = _letters_in_order(text)
        step = _parse_renamed(renamed)
        if step is None:
            unparsed.append(sentence.strip())
        else:
            steps.append(_named_back(step, back))
    return steps, unparsed
