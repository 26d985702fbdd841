"""The construction language shared by the generator and the item format.

A construction is a list of steps, each a dict {"op": NAME, "pts": [...]} naming points by
letters in a fixed role order. Shapes introduce their points; derived steps add one new point
(always the first of `pts`) from earlier ones. A question asks the relation of two elements.
Phrasings are the sentences an item's text uses; the verifier reads them with its own grammar.
"""

from __future__ import annotations

# op -> (role names, phrasings). `{X}` is replaced by the point named in role X.
SHAPES = {
    "triangle": ("ABC", ["{A}{B}{C} is a triangle.", "Triangle {A}{B}{C} is given."]),
    "right_triangle": ("ABC", ["{A}{B}{C} is a right triangle with the right angle at {B}.",
                               "Triangle {A}{B}{C} is right-angled at {B}."]),
    "isosceles": ("ABC", ["{A}{B}{C} is an isosceles triangle with {A}{B} = {A}{C}.",
                          "In triangle {A}{B}{C}, {A}{B} = {A}{C}."]),
    "equilateral": ("ABC", ["{A}{B}{C} is an equilateral triangle.", "Triangle {A}{B}{C} is equilateral."]),
    "parallelogram": ("ABCD", ["{A}{B}{C}{D} is a parallelogram.", "Quadrilateral {A}{B}{C}{D} is a parallelogram."]),
    "rectangle": ("ABCD", ["{A}{B}{C}{D} is a rectangle.", "Quadrilateral {A}{B}{C}{D} is a rectangle."]),
    "square": ("ABCD", ["{A}{B}{C}{D} is a square.", "Quadrilateral {A}{B}{C}{D} is a square."]),
    "rhombus": ("ABCD", ["{A}{B}{C}{D} is a rhombus.", "Quadrilateral {A}{B}{C}{D} is a rhombus."]),
    "trapezoid": ("ABCD", ["{A}{B}{C}{D} is a trapezoid with {A}{B} ∥ {D}{C}.",
                           "In trapezoid {A}{B}{C}{D}, {A}{B} is parallel to {D}{C}."]),
}

# Derived steps: the first role is the new point.
DERIVED = {
    "midpoint": ("MXY", ["{M} is the midpoint of {X}{Y}.", "Point {M} bisects segment {X}{Y}."]),
    "on_segment": ("PXY", ["{P} is a point on segment {X}{Y}.", "Point {P} lies on segment {X}{Y}."]),
    "extension": ("PXY", ["{P} lies on the extension of {X}{Y} beyond {Y}.",
                          "Extend {X}{Y} beyond {Y} to a point {P}."]),
    "foot": ("HPXY", ["{H} is the foot of the perpendicular from {P} to line {X}{Y}.",
                      "Drop a perpendicular from {P} to line {X}{Y}, meeting it at {H}."]),
    "reflect": ("RPQ", ["{R} is the reflection of {P} about point {Q}.",
                        "Point {R} is symmetric to {P} with respect to point {Q}."]),
    "parallel": ("QPXY", ["Line {P}{Q} is drawn through {P} parallel to {X}{Y}.",
                          "Through {P}, draw {P}{Q} parallel to {X}{Y}."]),
    "perpendicular": ("QPXY", ["Line {P}{Q} is drawn through {P} perpendicular to {X}{Y}.",
                               "Through {P}, draw {P}{Q} perpendicular to {X}{Y}."]),
    "on_circle": ("PXY", ["{P} is a point on the circle with diameter {X}{Y}.",
                          "Point {P} lies on the circle whose diameter is {X}{Y}."]),
    "free": ("P", ["{P} is an arbitrary point.", "Point {P} is chosen anywhere in the plane."]),
    "centroid": ("GXYZ", ["{G} is the centroid of triangle {X}{Y}{Z}.",
                          "Point {G} is where the medians of triangle {X}{Y}{Z} meet."]),
}

TRIANGLES = {"triangle", "right_triangle", "isosceles", "equilateral"}
SHAPE_NAMES = {"triangle": "triangle", "right_triangle": "triangle", "isosceles": "triangle",
               "equilateral": "triangle", "parallelogram": "parallelogram", "rectangle": "rectangle",
               "square": "square", "rhombus": "rhombus", "trapezoid": "trapezoid"}

CANNOT = "Cannot be inferred"
# domain -> ordered (relation, option text, anchor-style code)
RELATIONS = {
    "line": [("parallel", "Parallel", "LL_PA"), ("perpendicular", "Perpendicular", "LL_PE"),
             ("intersecting", "Intersecting but not perpendicular", "LL_INT"), ("cannot", CANNOT, "LL_UN")],
    "angle": [("equal", "Equal", "EXT_AA_EQ"), ("complementary", "Complementary", "AA_COM"),
              ("supplementary", "Supplementary", "AA_SUP"), ("none", "None of the above", "AA_VIDE"),
              ("cannot", CANNOT, "AA_UN")],
    "shape": [("inside", "Inside", "SP_IN"), ("outside", "Outside", "SP_OUT"), ("cannot", CANNOT, "SP_UN")],
}
QUESTIONS = {
    "line": "What is the positional relationship between line {a} and line {b}?",
    "angle": "What is the relationship between the measures of ∠{a} and ∠{b}?",
    "shape": "Is point {a} inside or outside {b}?",
}
DOMAINS = tuple(RELATIONS)
TEMPLATES = tuple(SHAPES) + tuple(DERIVED)


def option_text(domain: str, relation: str) -> str:
    return next(text for rel, text, _ in RELATIONS[domain] if rel == relation)


def relation_code(domain: str, relation: str) -> str:
    return next(code for rel, _, code in RELATIONS[domain] if rel == relation)


def relation_of_text(domain: str, text: str) -> str | None:
    norm = text.strip().rstrip(".").lower()
    for rel, opt, _ in RELATIONS[domain]:
        if opt.lower() == norm:
            return rel
    return None


def roles(op: str) -> str:
    return (SHAPES.get(op) or DERIVED[op])[0]


def render_step(step: dict, variant: int) -> str:
    role_names, phrasings = SHAPES.get(step["op"]) or DERIVED[step["op"]]
    mapping = dict(zip(role_names, step["pts"], strict=True))
    return phrasings[variant % len(phrasings)].format(**mapping)


def element_text(domain: str, element: list[str], shape_op: str | None = None) -> str:
    """'AB' for a line, 'ABC' for an angle, the point for a shape question's first element."""
    if domain == "shape" and shape_op is not None:
        return f"{SHAPE_NAMES[shape_op]} {''.join(element)}"
    return "".join(element)
