"""Generated items in the GeomRel benchmark's own wording: comma-joined clauses, "Triangle ABC is right-angled at
B", "Quadrilateral ABCD is a square", the question "What is the relationship between line AB and line EF?", and
the released files' layout (basic items have no space after the period before the question; advanced ones put
one after "Answer choices:"). Labels and options are unchanged; only the text is rewritten.
"""

from __future__ import annotations

from toolkit.core.errors import InputError

PHRASES = {
    "triangle": "triangle {A}{B}{C}",
    "right_triangle": "triangle {A}{B}{C} is right-angled at {B}",
    "isosceles": "triangle {A}{B}{C} is isosceles with {A}{B} = {A}{C}",
    "equilateral": "triangle {A}{B}{C} is equilateral",
    "parallelogram": "quadrilateral {A}{B}{C}{D} is a parallelogram",
    "rectangle": "quadrilateral {A}{B}{C}{D} is a rectangle",
    "square": "quadrilateral {A}{B}{C}{D} is a square",
    "rhombus": "quadrilateral {A}{B}{C}{D} is a rhombus",
    "trapezoid": "quadrilateral {A}{B}{C}{D} is a trapezoid with {A}{B} parallel to {D}{C}",
    "midpoint": "point {M} is the midpoint of {X}{Y}",
    "on_segment": "{P} is a point on segment {X}{Y}",
    "extension": "point {P} lies on the extension of {X}{Y} beyond {Y}",
    "foot": "{H} is the foot of the perpendicular from {P} to line {X}{Y}",
    "reflect": "{R} is the reflection of {P} about point {Q}",
    "parallel": "line {P}{Q} is drawn through {P} parallel to {X}{Y}",
    "perpendicular": "line {P}{Q} is drawn through {P} perpendicular to {X}{Y}",
    "on_circle": "{P} is a point on the circle with diameter {X}{Y}",
    "free": "point {P} is a point in the plane",
    "centroid": "triangle {X}{Y}{Z} with centroid at point {G}",
}


def body_text(steps: list[dict]) -> str:
    """A construction's steps as one comma-joined sentence (no final period), capitalised."""
    from toolkit.geomrel import dsl

    clauses = []
    for s in steps:
        roles = dsl.roles(s["op"])
        clauses.append(PHRASES[s["op"]].format(**dict(zip(roles, s["pts"], strict=True))))
    body = ", ".join(clauses)
    return body[0].upper() + body[1:]


def anchor_text(item: dict) -> str:
    """The question of a generated line item as the anchor would word it."""
    steps, q = item["construction"]["steps"], item["construction"]["question"]
    if q["domain"] != "line":
        raise InputError(f"--wording anchor: line questions are reworded from the generator's; the anchor's other "
                         f"tasks are generated in its wording directly (anchor_tasks), not {q['domain']}")
    body = body_text(steps)
    ask = f"What is the relationship between line {''.join(q['a'])} and line {''.join(q['b'])}?"
    options = " ".join(f"{'ABCDE'[i]}. {o}" for i, o in enumerate(item["options"]))
    if item.get("level") == "advanced":
        return f"{body}. {ask}\nAnswer choices: {options}"
    return f"{body}.{ask}\nAnswer choices:{options}"
