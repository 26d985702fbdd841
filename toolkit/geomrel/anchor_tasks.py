"""Generated items for the anchor's other tasks, in its wording: angle names (AA_*), collinearity (LP_*), a point in
a shape (SP_*) and a segment in a shape (SL_*).

Labels are proven here, never read back from the verifier:
- angle names come from the figure's combinatorics (which rays are opposite, which side of the transversal an arm
  points to), the way a textbook names them;
- collinearity is method A's exact status of cross(Q - P, R - P): identically zero (Yes), never zero (No), or zero
  at an exact admissible witness and not identically (Cannot be inferred);
- a point in a shape is the plain generator's proven shape label; a segment from a vertex to that point is inside
  exactly when the point is (the named shapes are convex: the segment then runs through the interior), outside when
  the point is, and undetermined when the point is.
"""

from __future__ import annotations

import hashlib
import random
import string

from toolkit.geomrel import dsl
from toolkit.geomrel import exact as X
from toolkit.geomrel.anchor_wording import body_text
from toolkit.geomrel.generate import build_program, generate_item
from toolkit.geomrel.labels import Undecided, _status

YES_NO = ["Yes", "No", "Cannot be inferred"]
ANGLE_NAMES = {"vertical": ("Vertical angles", "AA_VER"), "linear pair": ("Supplementary angles", "AA_SUP"),
               "adjacent": ("Adjacent angles", "AA_ADJ"), "diagonal": ("Diagonal angles", "AA_DIA"),
               "corresponding": ("Corresponding angles", "AA_COR"),
               "alternate interior": ("Alternate interior angles", "AA_ALIN"),
               "alternate exterior": ("Alternate exterior angles", "AA_ALEX"),
               "consecutive interior": ("Consecutive interior angles", "AA_COIN"),
               "consecutive exterior": ("Consecutive exterior angles", "AA_COEX"),
               "none": ("None of the above", "AA_VIDE"), "cannot": ("Cannot be inferred", "AA_UN")}
TRANSVERSAL = ["corresponding", "alternate interior", "alternate exterior", "consecutive interior",
               "consecutive exterior", "vertical"]


def _letters(rng: random.Random, k: int) -> list[str]:
    return rng.sample(string.ascii_uppercase, k)


def _angle(x: str, v: str, y: str, rng: random.Random) -> str:
    return f"{x}{v}{y}" if rng.random() < 0.5 else f"{y}{v}{x}"


def _options(texts: list[str]) -> str:
    return " ".join(f"{'ABCDE'[i]}. {t}" for i, t in enumerate(texts))


def _record(kind: str, level: str, index: int, text: str, options: list[str], relation: str, code: str,
            extra: dict | None = None) -> dict:
    return {"id": f"gen-anchor-{kind}-{index:05d}-{hashlib.sha1(text.encode()).hexdigest()[:8]}",
            "question": text, "options": options, "answer": "ABCDE"[options.index(relation)], "relation": code,
            "level": level, "domain": kind, "wording": "anchor", "source": "generated", **(extra or {})}


def angle_name_item(rng: random.Random, index: int) -> dict:
    """One angle-name item: vertical / linear pair at a crossing, adjacent / diagonal angles of a quadrilateral, the
    transversal names of two parallels, or an undetermined pair at a free point."""
    figure = rng.choice(["crossing", "quadrilateral", "transversal", "transversal", "free"])
    if figure == "crossing":
        a, b, c, d, e = _letters(rng, 5)
        rays = [(a, b), (b, a)], [(c, d), (d, c)]  # (ray, its opposite) on each line
        x, xo = rng.choice(rays[0])
        y, yo = rng.choice(rays[1])
        if rng.random() < 0.5:
            second, name = (xo, yo), "vertical"
        else:
            second, name = rng.choice([(x, yo), (xo, y)]), "linear pair"
        first = [_angle(x, e, y, rng), _angle(second[0], e, second[1], rng)]
        rng.shuffle(first)
        body = f"Line {a}{b} intersects line {c}{d} at point {e}."
        opts = ["Vertical angles", "Supplementary angles", "None of the above", "Cannot be inferred"]
        text = f"{body}What is the relationship between ∠{first[0]} and ∠{first[1]}? \nAnswer choices:{_options(opts)}"
        return _record("angle", "basic", index, text, opts, ANGLE_NAMES[name][0], ANGLE_NAMES[name][1])
    if figure == "quadrilateral":
        q = _letters(rng, 4)
        kind = rng.choice(["rectangle", "square", "parallelogram", "rhombus"])
        i, j = rng.sample(range(4), 2)
        name = "diagonal" if (i - j) % 4 == 2 else "adjacent"
        angles = [_angle(q[k - 1], q[k], q[(k + 1) % 4], rng) for k in (i, j)]
        opts = ["Diagonal angles", "Adjacent angles", "None of the above", "Cannot be inferred"]
        text = (f"Quadrilateral {''.join(q)} is a {kind}. What is the relationship between ∠{angles[0]} and "
                f"∠{angles[1]}? \nAnswer choices:{_options(opts)}")
        return _record("angle", "basic", index, text, opts, ANGLE_NAMES[name][0], ANGLE_NAMES[name][1])
    if figure == "free":
        a, b, c, d, e = _letters(rng, 5)
        opts = ["Vertical angles", "Supplementary angles", "None of the above", "Cannot be inferred"]
        # T may be where the two lines cross (vertical angles) or anywhere else (no name)
        first = [_angle(a, e, c, rng), _angle(b, e, d, rng)]
        text = (f"The lines {a}{b} and {c}{d} are not parallel, and point {e} is another point in the plane. What is "
                f"the relationship between ∠{first[0]} and ∠{first[1]}? \nAnswer choices:{_options(opts)}")
        return _record("angle", "basic", index, text, opts, "Cannot be inferred", "AA_UN")
    return _transversal_item(rng, index)


def _transversal_item(rng: random.Random, index: int) -> dict:
    a, b, c, d, e, g, h, f = _letters(rng, 8)
    # line ab crosses the transversal cd at e, line gh crosses it at f; c, e, f, d in this order; a and g on one side
    body = (f"Line {a}{b} intersects line {c}{d} at point {e}, line {g}{h} intersects line {c}{d} at point {f}, with "
            f"{e} closer to {c} and {f} closer to {d}, {g}{h} is parallel to {a}{b}, and points {a} and {g} lie on "
            "the same side of the lines.")
    side = {a: 1, g: 1, b: -1, h: -1}
    at_e = (rng.choice([a, b]), rng.choice([c, d]))  # (arm off the transversal, arm along it)
    at_f = (rng.choice([g, h]), rng.choice([c, d]))
    if rng.random() < 0.2:  # two angles at one crossing
        at_f = rng.choice([(x, y) for x in (a, b) for y in (c, d) if (x, y) != at_e])
        name = "linear pair" if at_e[0] == at_f[0] or at_e[1] == at_f[1] else "vertical"
        second_vertex = e
    else:
        interior_e, interior_f = at_e[1] == d, at_f[1] == c  # the arm along cd points to the other crossing
        same_side = side[at_e[0]] == side[at_f[0]]
        if interior_e != interior_f:
            name = "corresponding" if same_side else "none"
        else:
            name = ("consecutive " if same_side else "alternate ") + ("interior" if interior_e else "exterior")
        second_vertex = f
    angles = [_angle(at_e[0], e, at_e[1], rng), _angle(at_f[0], second_vertex, at_f[1], rng)]
    if rng.random() < 0.5:
        angles.reverse()
    names = [n for n in TRANSVERSAL + ["linear pair"] if n != name]
    shown = [name] if name != "none" else []
    shown += rng.sample([n for n in names if n != "linear pair" or name != "none"], 3 - len(shown))
    rng.shuffle(shown)
    opts = [ANGLE_NAMES[n][0] for n in shown] + ["None of the above", "Cannot be inferred"]
    text = f"{body} What is the relationship between ∠{angles[0]} and ∠{angles[1]}? \nAnswer choices:{_options(opts)}"
    return _record("angle", "advanced", index, text, opts, ANGLE_NAMES[name][0], ANGLE_NAMES[name][1])


def collinear_item(rng: random.Random, level: str, allowed: list[str], index: int, tries: int = 60) -> dict:
    """Are three points of a generated construction collinear? Yes / No / Cannot be inferred, proven exactly."""
    depth = rng.choice((1, 2)) if level == "basic" else rng.choice((2, 3))
    want = rng.choice(["yes", "no", "cannot"])
    for t in range(tries):
        steps = build_program(rng, depth + 1, allowed, distractor=False)
        real = X.realize(steps)
        if X.coincident_pair(real, rng) is not None:
            continue
        names = sorted(real.points)
        p, q, r = rng.sample(names, 3)
        if want == "yes":  # a derived point on the line of its own step's two points, when the step makes one
            lined = [s for s in steps[1:] if s["op"] in ("midpoint", "on_segment", "extension", "reflect", "foot")]
            if lined:
                s = rng.choice(lined)
                p, q, r = (s["pts"][2], s["pts"][3], s["pts"][0]) if s["op"] == "foot" else \
                    (s["pts"][1], s["pts"][2], s["pts"][0])
        expr = X.cross(X.sub(real.points[q], real.points[p]), X.sub(real.points[r], real.points[p]))
        try:
            status, witness = _status(real, expr, X.known_nonzero_factors(real), rng, [])
        except Undecided:
            continue
        label = {"forced": "Yes", "impossible": "No", "possible": "Cannot be inferred"}[status]
        if {"Yes": "yes", "No": "no"}.get(label, "cannot") != want and t < tries // 2:
            continue
        body = body_text(steps)
        form = rng.randrange(3)
        if form == 0:
            ask, tail = f"Are points {p}, {q}, and {r} collinear? ", " \nAnswer choices: "
        elif form == 1:
            ask, tail = f"Do points {p}, {q}, and {r} lie on the same line?", "\nAnswer choices:"
        else:
            ask, tail = f"Is point {r} on the line {p}{q}?", "\nAnswer choices:"
        text = f"{body}.{ask}" if level == "basic" else f"{body}. {ask}"
        text = text.rstrip() + tail + _options(YES_NO)
        code = {"Yes": "LP_CO", "No": "LP_IC", "Cannot be inferred": "LP_UN"}[label]
        extra = {"construction": {"steps": steps, "question": {"points": [p, q, r]}}}
        if witness is not None:
            extra["witnesses"] = [X.witness_json(real, witness, "collinear")]
        return _record("collinear", level, index, text, YES_NO, label, code, extra)
    raise Undecided("no decidable collinearity question")


def shape_item(rng: random.Random, level: str, allowed: list[str], index: int, segment: bool) -> dict:
    """A point in a shape (SP_*), or the segment from a vertex to that point (SL_*), from a generated shape item."""
    polygons = [t for t in allowed if t not in ("free",)]
    item = generate_item(rng, level, "shape", None, polygons, index)
    q = item["construction"]["question"]
    rel, p = item["canonical"], q["a"][0]
    kind, name = dsl.SHAPE_NAMES[q["shape_op"]], "".join(q["shape"])
    body = body_text(item["construction"]["steps"])
    if segment:
        vertex = rng.choice(q["shape"])
        seg = f"{vertex}{p}" if rng.random() < 0.5 else f"{p}{vertex}"
        ask, opts = f"Is line segment {seg} inside {kind} {name}?", YES_NO
        code = {"inside": "SL_IN", "outside": "SL_OUT", "cannot": "SL_UN"}[rel]
        tail = "\nAnswer choices:" + _options(opts) + "."
    elif rng.random() < 0.5:
        ask, opts = f"Is point {p} inside {kind} {name}?", YES_NO
        code = {"inside": "SP_IN", "outside": "SP_OUT", "cannot": "SP_UN"}[rel]
        tail = "\nAnswer choices:" + _options(opts) + "."
    else:
        ask, opts = f"What is the relationship between point {p} and {kind} {name}?", ["Inside", "Outside",
                                                                                       "Cannot be inferred"]
        code = {"inside": "SP_IN", "outside": "SP_OUT", "cannot": "SP_UN"}[rel]
        tail = "\nAnswer choices:" + _options(opts)
    truth = {"inside": opts[0], "outside": opts[1], "cannot": opts[2]}[rel]
    text = f"If {body[0].lower()}{body[1:]}. {ask}{tail}"
    return _record("segment" if segment else "shape", level, index, text, list(opts), truth, code,
                   {"construction": item["construction"], "witnesses": item["witnesses"]})


TASKS = ("line", "collinear", "angle", "shape", "segment")


def anchor_task_item(task: str, rng: random.Random, level: str, allowed: list[str], index: int) -> dict:
    if task == "angle":
        return angle_name_item(rng, index)
    if task == "collinear":
        return collinear_item(rng, level, allowed, index)
    return shape_item(rng, level, allowed, index, segment=task == "segment")


def generate_anchor(n: int, seed: int, level: str, tasks: list[str], depth: int | None = None,
                    exclude: list[str] = ()) -> list[dict]:
    """n items in the anchor's wording, tasks in turn (line items are the plain generator's, reworded); the same
    arguments give the same items."""
    from toolkit.core.errors import InputError
    from toolkit.geomrel.anchor_wording import anchor_text
    from toolkit.geomrel.generate import LEVEL_DEPTHS

    if level not in LEVEL_DEPTHS:
        raise InputError(f"--level {level}: expected basic or advanced")
    for t in tasks:
        if t not in TASKS:
            raise InputError(f"--domains: unknown task {t!r} for --wording anchor (expected {', '.join(TASKS)})")
    allowed = [t for t in dsl.TEMPLATES if t not in exclude]
    items = []
    for i in range(n):
        rng, task = random.Random(f"{seed}:{level}:{i}"), tasks[i % len(tasks)]
        if task == "line":
            item = generate_item(rng, level, "line", depth, allowed, i)
            items.append({**item, "question": anchor_text(item), "wording": "anchor"})
        else:
            items.append(anchor_task_item(task, rng, level, allowed, i))
    return items
