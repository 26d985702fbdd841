"""Auditing an item in the GeomRel benchmark's own wording: read the premises (anchor_read), solve the figure on
several random solutions (figure), decide the asked relation and compare it with the gold option.

Every read item gets agree, disagree or ambiguous with a reason; an item whose wording no pattern reads is
unparsed (the clause is named). A disagreement is a mislabel (the premises force another relation, or allow two) or
an ill-posed item (the premises contradict themselves, name a diagonal a side, give a pentagon six vertices ...).
"""

from __future__ import annotations

import numpy as np

from toolkit.geomrel import anchor_read, figure
from toolkit.geomrel.figure import _cross, _sin, _unit

OPTION = {"parallel": "Parallel", "perpendicular": "Perpendicular",
          "intersecting": "Intersecting but not perpendicular", "cannot": "Cannot be inferred", "yes": "Yes",
          "no": "No", "inside": "Yes", "outside": "No",
          "vertical": "Vertical angles", "linear pair": "Supplementary angles", "adjacent": "Adjacent angles",
          "diagonal": "Diagonal angles", "corresponding": "Corresponding angles",
          "alternate interior": "Alternate interior angles", "alternate exterior": "Alternate exterior angles",
          "consecutive interior": "Consecutive interior angles",
          "consecutive exterior": "Consecutive exterior angles", "complementary": "Complementary angles",
          "none": "None of the above"}


def _norm(text: str) -> str:
    return text.strip().rstrip(".").strip().lower()


def option_letter(options: list[str], relation: str) -> str | None:
    want = _norm(OPTION.get(relation, relation))
    for i, o in enumerate(options):
        if _norm(o) == want:
            return "ABCDE"[i]
    if relation in ("inside", "outside"):  # "Is point E inside ...?" offers Yes/No; "What is the relationship" Inside
        return next(("ABCDE"[i] for i, o in enumerate(options) if _norm(o) == relation), None)
    if relation in OPTION and relation not in ("cannot",) and OPTION[relation].endswith("angles"):
        return option_letter(options, "none")  # an angle pair whose name is not offered is "None of the above"
    return None


def decide(reading: anchor_read.Reading, seed: int = 0, samples: int = 6) -> dict:
    """{'derived': relation | None, 'reason': str, 'problem': str | None}"""
    st, q = reading.state, reading.question
    if st.problems:
        return {"derived": None, "problem": "; ".join(st.problems), "reason": "ill-posed: " + "; ".join(st.problems)}
    elements = "".join(v for k, v in q.items() if k in ("a", "b", "p", "q", "r", "s") and v)
    for line in [q.get("a"), q.get("b"), q.get("s")]:
        if line and len(line) == 2 and line[0] == line[1]:
            return {"derived": None, "problem": f"line {line} names one point", "reason": f"ill-posed: {line} names "
                    "one point, not a line"}
    if q["kind"] in ("segment", "point", "role"):
        known = q["name"] in st.shapes or ("circle " + q["name"]) in st.shapes
        if not known:
            return {"derived": None, "problem": f"{q['shape']} {q['name']} is never described",
                    "reason": f"ill-posed: the question's {q['shape']} {q['name']} is never described"}
    fig = figure.Figure(st.facts, sorted(st.points | set(elements)))
    rng = np.random.default_rng(seed)
    xs = fig.solve(rng, k=samples * (4 if q["kind"] in ("segment", "point") else 1))
    if not xs:  # before calling the premises contradictory, a longer search (12 random starts can all miss)
        xs = fig.solve(rng, k=samples, tries=120, patience=120)
    if not xs:
        culprit = _culprit(st, elements, rng)
        why = f"; without {culprit} one does" if culprit else ""
        return {"derived": None, "problem": "no figure satisfies the premises",
                "reason": f"ill-posed: no figure with distinct named points satisfies the premises together{why}"}
    kind = q["kind"]
    if kind == "line":
        return _lines(fig, q["a"], q["b"], xs, rng)
    if kind in ("coll", "sameline"):
        pts = (q["p"] + q["q"] + q["r"]) if kind == "coll" else "".join(dict.fromkeys(q["a"] + q["b"]))
        return _collinear(fig, pts, xs, rng)
    if kind in ("segment", "point"):
        return _segment(fig, st, q, xs)
    if kind == "role":
        return _role(fig, st, q, xs)
    return _angles(fig, st, q["a"], q["b"], xs, rng)


SHOW = {"par": "{1} ∥ {2}", "perp": "{1} ⊥ {2}", "coll": "{1} collinear", "mid": "{1} the midpoint of {2}",
        "eqlen": "{1} = {2}", "angle": "∠{1} = {2}°", "angleeq": "∠{1} = ∠{2}", "anglesum": "∠{1} + ∠{2} = {3}°",
        "between": "{1} between the ends of {2}", "beyond": "{1} beyond the end of {2}", "convex": "{1} convex",
        "tangent": "{1} tangent at {3}", "on": "{2} on circle {1}", "ratio": "{1} dividing {2}",
        "lenratio": "{1} = {3:.3g} {2}"}


def _culprit(st, elements, rng) -> str | None:
    """The one stated fact whose removal leaves a figure, named for the reason; None when no single one does."""
    for i, f in enumerate(st.facts):
        if f[0] not in SHOW:
            continue
        fig = figure.Figure(st.facts[:i] + st.facts[i + 1:], sorted(st.points | set(elements)))
        if fig.solve(rng, k=1, tries=8):
            return SHOW[f[0]].format(*[("".join(x) if isinstance(x, list) else x) for x in f])
    return None


def _reach(fig, extra, xs, rng, accept=None, opens=()) -> np.ndarray | None:
    found = fig.solve(rng, k=1, tries=12, extra=extra, starts=xs, opens=opens)
    for x in found:
        if accept is None or accept(fig.coords(x)):
            return x
    return None


def _lines(fig, a, b, xs, rng):
    sins = [abs(_sin(figure._vec(fig.coords(x), a), figure._vec(fig.coords(x), b))) for x in xs]
    coss = [abs(figure._cos(figure._vec(fig.coords(x), a), figure._vec(fig.coords(x), b))) for x in xs]

    def apart(P):
        u = figure._vec(P, a)
        return abs(_sin(u, P[b[0]] - P[a[0]])) > 1e-6 or abs(_sin(u, P[b[1]] - P[a[0]])) > 1e-6

    if max(sins) < 1e-6:
        if not any(apart(fig.coords(x)) for x in xs):
            return {"derived": None, "problem": f"lines {a} and {b} coincide",
                    "reason": f"ill-posed: lines {a} and {b} are one line"}
        return {"derived": "parallel", "reason": f"{a} ∥ {b} in every figure the premises allow"}
    if max(coss) < 1e-6:
        return {"derived": "perpendicular", "reason": f"{a} ⊥ {b} in every figure the premises allow"}
    par = _reach(fig, [("par", a, b)], xs, rng, apart)
    perp = None if par is not None else _reach(fig, [("perp", a, b)], xs, rng)
    if par is not None or perp is not None:
        special = "parallel" if par is not None else "perpendicular"
        return {"derived": "cannot", "reason": f"the premises allow {a}, {b} {special} and also merely "
                                               "intersecting", "witness": _witness(fig, par if par is not None
                                                                                   else perp)}
    return {"derived": "intersecting", "reason": f"{a} and {b} meet and can be neither parallel nor perpendicular"}


def _collinear(fig, pts, xs, rng):
    def val(P):
        return abs(_sin(P[pts[1]] - P[pts[0]], P[pts[2]] - P[pts[0]]))

    vals = [val(fig.coords(x)) for x in xs]
    if max(vals) < 1e-6:
        return {"derived": "yes", "reason": f"{', '.join(pts)} are collinear in every figure the premises allow"}
    x = _reach(fig, [("coll", pts)], xs, rng)
    if x is not None:
        return {"derived": "cannot", "reason": f"{', '.join(pts)} can be collinear or not", "witness": _witness(fig, x)}
    return {"derived": "no", "reason": f"{', '.join(pts)} can never be collinear under the premises"}


def _segment(fig, st, q, xs):
    s, name = q["s"], q["name"]
    found = set()
    for x in xs:
        P = fig.coords(x)
        if ("circle " + name) in st.shapes:
            c = fig.centre(P, name)
            r = P["r:" + name]
            d = [np.linalg.norm(P[p] - c) for p in s]
            if len(s) == 1 and abs(d[0] - r) <= 1e-6 * r:
                found.add("boundary")
            else:
                found.add("inside" if max(d) <= r * (1 + 1e-6) else "outside")
            continue
        ring = [P[p] for p in name]
        where = [figure.point_in(P[p], ring) for p in s]
        if min(where) < 0:
            found.add("outside")
        elif where == [0] or (where == [0, 0] and _on_one_side(P[s[0]], P[s[1]], ring)):
            found.add("boundary")
        else:
            found.add("inside")
    if len(found) > 1:
        return {"derived": "cannot", "reason": f"{s} is {' or '.join(sorted(found))} in different figures"}
    rel = found.pop()
    if rel == "boundary":
        return {"derived": "boundary", "reason": f"{s} lies on the boundary of {name} (on it, not inside)"}
    return {"derived": rel, "reason": f"{s} is {rel} {q['shape']} {name} in every figure the premises allow"
            + (" (convex, as named)" if len(name) > 4 else "")}


def _role(fig, st, q, xs):
    """Is segment s a side / diagonal / median ("midline") / angle bisector / altitude / height / radius / diameter?"""
    s, role, name = q["s"], q["role"].lower(), q["name"]
    if role in ("side", "diagonal"):  # by the vertex order alone
        n = len(name)
        adjacent = set(s) <= set(name) and (name.index(s[0]) - name.index(s[1])) % n in (1, n - 1)
        opposite = set(s) <= set(name) and not adjacent
        yes = adjacent if role == "side" else opposite
        return {"derived": "yes" if yes else "no",
                "reason": f"{s} {'is' if yes else 'is not'} {'a side' if role == 'side' else 'a diagonal'} of {name}"}
    found = {_role_holds(fig, fig.coords(x), s, role, name) for x in xs}
    if len(found) > 1:
        return {"derived": "cannot", "reason": f"{s} is the {role} of {name} in some figures and not in others"}
    yes = found.pop()
    what = "median (the anchor's 'midline')" if role == "midline" else role
    return {"derived": "yes" if yes else "no",
            "reason": f"{s} {'is' if yes else 'is not'} {'an' if what[0] in 'aeiou' else 'a'} {what} of {name} "
                      "in every figure the premises allow"}


def _role_holds(fig, P, s, role, name) -> bool:
    tol = 1e-6
    if role in ("radius", "diameter"):
        c, r = fig.centre(P, name), P["r:" + name]
        on = [abs(np.linalg.norm(P[p] - c) - r) <= tol * r for p in s]
        if role == "radius":
            return any(np.linalg.norm(P[p] - c) <= tol * r for p in s) and any(on)
        return all(on) and np.linalg.norm((P[s[0]] + P[s[1]]) / 2 - c) <= tol * r
    scale = max(np.linalg.norm(P[a] - P[b]) for a in name for b in name)
    if role == "height":  # one end on a side's line, the other on the opposite side's line, perpendicular to both
        for i in range(2):
            l1, l2 = name[i] + name[i + 1], name[i + 2] + name[(i + 3) % 4]
            for a, b in (s, s[::-1]):
                if (abs(_cross(_unit(P[l1[1]] - P[l1[0]]), P[a] - P[l1[0]])) <= tol * scale
                        and abs(_cross(_unit(P[l2[1]] - P[l2[0]]), P[b] - P[l2[0]])) <= tol * scale
                        and abs(np.dot(_unit(P[b] - P[a]), _unit(P[l1[1]] - P[l1[0]]))) <= tol):
                    return True
        return False
    for v in s:  # triangle cevians: from a vertex to the opposite side
        if v not in name:
            continue
        foot = s.replace(v, "")
        b, c = [x for x in name if x != v]
        X, V, B, C = P[foot], P[v], P[b], P[c]
        on_line = abs(_cross(_unit(C - B), X - B)) <= tol * scale
        if role == "midline" and np.linalg.norm(X - (B + C) / 2) <= tol * scale:
            return True
        if role == "altitude" and on_line and abs(np.dot(_unit(X - V), _unit(C - B))) <= tol:
            return True
        if role == "angle bisector" and on_line and np.dot(B - X, C - X) < 0:
            u, w, d = _unit(B - V), _unit(C - V), _unit(X - V)
            if abs(np.dot(u, d) - np.dot(w, d)) <= tol:
                return True
    return False


def _on_one_side(p, q, ring) -> bool:
    n = len(ring)
    for i in range(n):
        a, b = ring[i], ring[(i + 1) % n]
        if abs(_cross(_unit(b - a), p - a)) < 1e-7 and abs(_cross(_unit(b - a), q - a)) < 1e-7:
            return True
    return False


def _angles(fig, st, a, b, xs, rng):
    named = _polygon_angles(st, a, b)
    if named:
        return {"derived": named, "reason": f"∠{a} and ∠{b} are the angles at {named} vertices of the "
                                            "quadrilateral"}
    kinds = {angle_pair(fig.coords(x), a, b) for x in xs}
    if len(kinds) > 1:
        return {"derived": "cannot", "reason": f"∠{a}, ∠{b} are {' or '.join(sorted(kinds))} in different figures"}
    kind = kinds.pop()
    if kind == "none":  # no positional name: two angles summing to 90° in every figure are complementary
        sums = [_measure(fig.coords(x), a) + _measure(fig.coords(x), b) for x in xs]
        if max(abs(t - 90) for t in sums) < 1e-6:
            return {"derived": "complementary", "reason": f"∠{a} + ∠{b} = 90° in every figure the premises allow"}
    if a[1] == b[1]:  # a special position (arms made opposite) may give the pair a name
        for extra, opens in _arm_lines(a, b):
            x = _reach(fig, extra, xs, rng, opens=opens)
            if x is not None and (other := angle_pair(fig.coords(x), a, b)) != kind:
                return {"derived": "cannot", "reason": f"∠{a}, ∠{b} are {kind} here but {other} in another figure",
                        "witness": _witness(fig, x)}
    return {"derived": kind, "reason": f"∠{a} and ∠{b} are {kind} in every figure the premises allow"}


def _measure(P, ang) -> float:
    u, v = P[ang[0]] - P[ang[1]], P[ang[2]] - P[ang[1]]
    return float(np.degrees(np.arccos(np.clip(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)), -1, 1))))


def _arm_lines(a, b):
    """Equations and open conditions that make arms of the two angles opposite (a linear pair or vertical angles)."""
    v = a[1]
    arms_a, arms_b = [a[0], a[2]], [b[0], b[2]]

    def opposite(x, y):
        return [("coll", x + v + y)], [("between", v, x + y)]

    out = []
    for i in (0, 1):
        for j in (0, 1):
            if arms_a[i] != arms_b[j]:
                out.append(opposite(arms_a[i], arms_b[j]))
    if all(x not in arms_b for x in arms_a):
        for j in (0, 1):
            (e1, o1), (e2, o2) = opposite(arms_a[0], arms_b[j]), opposite(arms_a[1], arms_b[1 - j])
            out.append((e1 + e2, o1 + o2))
    return out


def _polygon_angles(st, a, b) -> str | None:
    for name, kind in st.shapes.items():
        if kind == "circle" or len(name) != 4:
            continue
        idx = []
        for ang in (a, b):
            v = ang[1]
            if v not in name:
                break
            i = name.index(v)
            if {ang[0], ang[2]} != {name[i - 1], name[(i + 1) % 4]}:
                break
            idx.append(i)
        if len(idx) == 2 and idx[0] != idx[1]:
            return "diagonal" if (idx[0] - idx[1]) % 4 == 2 else "adjacent"
    return None


def angle_pair(P, a, b) -> str:
    """The name of two angles in one realised figure."""
    va, vb = P[a[1]], P[b[1]]
    arms_a = [_unit(P[a[0]] - va), _unit(P[a[2]] - va)]
    arms_b = [_unit(P[b[0]] - vb), _unit(P[b[2]] - vb)]
    same, opp = (lambda u, v: np.dot(u, v) > 1 - 1e-6), (lambda u, v: np.dot(u, v) < -1 + 1e-6)
    if np.linalg.norm(va - vb) < 1e-6:
        for i in (0, 1):
            for j in (0, 1):
                if opp(arms_a[i], arms_b[j]) and opp(arms_a[1 - i], arms_b[1 - j]):
                    return "vertical"
                if same(arms_a[i], arms_b[j]) and opp(arms_a[1 - i], arms_b[1 - j]):
                    return "linear pair"
        return "none"
    t = _unit(vb - va)  # the transversal through both vertices
    ta = [i for i in (0, 1) if abs(np.dot(arms_a[i], t)) > 1 - 1e-6]
    tb = [i for i in (0, 1) if abs(np.dot(arms_b[i], t)) > 1 - 1e-6]
    if len(ta) != 1 or len(tb) != 1:
        return "none"
    ia, ib = ta[0], tb[0]
    wa, wb = arms_a[1 - ia], arms_b[1 - ib]
    interior_a = np.dot(arms_a[ia], t) > 0  # the transversal arm points toward the other vertex
    interior_b = np.dot(arms_b[ib], -t) > 0
    same_side = _cross(t, wa) * _cross(t, wb) > 0
    if interior_a != interior_b:
        return "corresponding" if same_side else "none"
    where = "interior" if interior_a else "exterior"
    return ("consecutive " if same_side else "alternate ") + where


def _witness(fig, x) -> dict:
    P = fig.coords(x)
    return {p: [round(float(v), 6) for v in P[p]] for p in fig.points if len(p) == 1}


def _without_convexity(st):
    import copy

    relaxed = copy.copy(st)
    relaxed.facts = [("simple", f[1]) if f[0] == "convex" else f for f in st.facts]
    return relaxed


def verify_anchor(item: dict, body: str, options: list[str], seed: int = 0) -> dict:
    """A geomrel.verdict body for an anchor-worded item."""
    reading = anchor_read.read(body)
    letter = item.get("answer")
    gold = options[ord(letter) - 65] if letter and 0 <= ord(letter) - 65 < len(options) else None
    out = {"id": item.get("id"), "gold": gold, "derived": None, "unparsed": reading.unparsed, "reader": "anchor"}
    if reading.unparsed or reading.question is None:
        return {**out, "status": "unparsed", "reason": "no pattern reads: " + " | ".join(reading.unparsed)}
    found = decide(reading, seed)
    if found.get("derived") not in (None, "boundary") and option_letter(options, found["derived"]) != letter \
            and any(f[0] == "convex" for f in reading.state.facts):
        # the convexity convention decided it: a polygon that may be concave (still simple) gives the gold label?
        relaxed = anchor_read.Reading(reading.question, _without_convexity(reading.state), [])
        loose = decide(relaxed, seed)
        if loose.get("derived") and option_letter(options, loose["derived"]) == letter:
            return {**out, "derived": found["derived"], "status": "ambiguous",
                    "reason": f"{found['reason']} if the polygon is convex; the gold label holds only for a concave "
                              f"one ({loose['reason']})"}
    out = {**out, "derived": found["derived"], "witness": found.get("witness")}
    if found.get("problem"):
        return {**out, "status": "disagree", "flag": "ill-posed", "reason": found["reason"]}
    rel = found["derived"]
    if rel == "boundary":
        return {**out, "status": "ambiguous", "reason": found["reason"]}
    derived_letter = option_letter(options, rel)
    out["derived_letter"] = derived_letter
    if derived_letter is None:
        return {**out, "status": "ambiguous", "reason": found["reason"] + "; no option names it"}
    if derived_letter == letter:
        return {**out, "status": "agree", "reason": found["reason"]}
    return {**out, "status": "disagree", "flag": "mislabel",
            "reason": f"{found['reason']}, so {OPTION.get(rel, rel)!r}; gold is {gold!r}"}
