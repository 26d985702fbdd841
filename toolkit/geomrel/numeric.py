"""Method B, part 2: float64 realizations of parsed steps and relation decisions.

Free quantities are drawn at random (K samples); stated relations ("AB ⊥ EF") and the search
for special positions (∥, ⊥, equal angles, ...) use scipy least_squares on residuals. A
relation holding at every sample is forced; one reachable with residual ~0 at a non-degenerate
realization is possible; shapely decides containment per sample.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import least_squares
from shapely.geometry import Point, Polygon

TOL = 1e-7
REACH_NEAREST, REACH_STRIDE, REACH_STARTS = 2, 5, 8  # least_squares starts when searching a special position
N_PARAMS = {"triangle": 6, "right_triangle": 5, "isosceles": 5, "equilateral": 4, "parallelogram": 6,
            "rectangle": 5, "square": 4, "rhombus": 5, "trapezoid": 7, "on_segment": 1, "extension": 1,
            "parallel": 1, "perpendicular": 1, "on_circle": 1, "free": 2, "polygon": None}


class Inconsistent(Exception):
    pass


def _rot(v):
    return np.array([-v[1], v[0]])


def _squash(z, domain):
    if domain == "unit":
        return 1 / (1 + np.exp(-z))
    if domain == "gt1":
        return 1 + np.exp(z)
    return z


def layout(steps):
    """Parameter count per step (polygons of n points take 2n)."""
    sizes = []
    for s in steps:
        n = N_PARAMS.get(s["op"], 0)
        sizes.append(2 * len(s["pts"]) if n is None else n)
    return sizes


def points(steps, theta):
    """Coordinates of every named point for one parameter vector."""
    P, i = {}, 0
    for s, size in zip(steps, layout(steps), strict=True):
        th, i = theta[i:i + size], i + size
        op, pts = s["op"], s["pts"]
        if op in ("triangle", "polygon", "parallelogram"):
            for j, name in enumerate(pts[:3] if op == "parallelogram" else pts):
                P[name] = th[2 * j:2 * j + 2]
            if op == "parallelogram":
                a, b, d = pts[0], pts[1], pts[3]
                P[d] = P.pop(pts[2])
                P[pts[2]] = P[b] + P[d] - P[a]
        elif op == "right_triangle":
            a, b, c = pts
            P[b], P[a] = th[0:2], th[2:4]
            P[c] = P[b] + th[4] * _rot(P[a] - P[b])
        elif op in ("isosceles", "equilateral"):
            a, b, c = pts
            P[b], P[c] = th[0:2], th[2:4]
            k = th[4] if op == "isosceles" else np.sqrt(3) / 2
            P[a] = (P[b] + P[c]) / 2 + k * _rot(P[c] - P[b])
        elif op in ("rectangle", "square", "rhombus", "trapezoid"):
            a, b, c, d = pts
            P[a], P[b] = th[0:2], th[2:4]
            ab = P[b] - P[a]
            if op == "rectangle":
                P[d] = P[a] + th[4] * _rot(ab)
            elif op == "square":
                P[d] = P[a] + _rot(ab)
            elif op == "rhombus":
                ang = th[4]
                P[d] = P[a] + np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]]) @ ab
            else:
                P[d] = th[4:6]
            P[c] = P[d] + _squash(th[6], "unit") * ab if op == "trapezoid" else P[b] + P[d] - P[a]
        elif op == "midpoint":
            P[pts[0]] = (P[pts[1]] + P[pts[2]]) / 2
        elif op in ("on_segment", "extension"):
            t = _squash(th[0], "unit" if op == "on_segment" else "gt1")
            P[pts[0]] = P[pts[1]] + t * (P[pts[2]] - P[pts[1]])
        elif op == "foot":
            h, p, x, y = pts
            d = P[y] - P[x]
            P[h] = P[x] + (P[p] - P[x]) @ d / (d @ d) * d
        elif op == "reflect":
            P[pts[0]] = 2 * P[pts[2]] - P[pts[1]]
        elif op in ("parallel", "perpendicular"):
            q, p, x, y = pts
            d = P[y] - P[x]
            P[q] = P[p] + th[0] * (d if op == "parallel" else _rot(d))
        elif op == "on_circle":
            p, x, y = pts
            o = (P[x] + P[y]) / 2
            ang = th[0]
            P[p] = o + np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]]) @ (P[x] - o)
        elif op == "free":
            P[pts[0]] = th[0:2]
        elif op == "centroid":
            P[pts[0]] = (P[pts[1]] + P[pts[2]] + P[pts[3]]) / 3
    return P


def _sin_cos(u, v):
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    return (u[0] * v[1] - u[1] * v[0]) / (nu * nv), (u @ v) / (nu * nv)


def constraint_residuals(steps, P):
    out = []
    for s in steps:
        if s["op"] in ("given_parallel", "given_perpendicular"):
            a, b, c, d = (P[x] for x in s["pts"])
            sin, cos = _sin_cos(b - a, d - c)
            out.append(sin if s["op"] == "given_parallel" else cos)
    return out


def degenerate(steps, P, theta) -> bool:
    """Shapes must keep area, derived steps need distinct defining points, 'nonzero' parameters stay away from 0."""
    scale = max(1.0, max(np.abs(v).max() for v in P.values()))
    # two names are two points (a point on a circle may not run into the diameter's far end, ...)
    if not _named_apart(P, 1e-6):
        return True
    for s in steps:
        pts = [P[x] for x in s["pts"] if x in P]
        if s["op"] in N_PARAMS and s["op"] not in ("free", "on_segment", "extension", "parallel", "perpendicular",
                                                   "on_circle") and len(pts) >= 3:
            for j in range(len(pts)):
                u, v = pts[(j + 1) % len(pts)] - pts[j], pts[(j + 2) % len(pts)] - pts[j]
                if abs(u[0] * v[1] - u[1] * v[0]) < 1e-6 * scale * scale:
                    return True
        elif len(pts) >= 2 and s["op"] != "free" and np.linalg.norm(pts[-1] - pts[-2]) < 1e-6 * scale:
            return True
        if s["op"] in ("parallel", "perpendicular") and np.linalg.norm(pts[0] - pts[1]) < 1e-6 * scale:
            return True
    return False


def realizations(steps, k, rng):
    """k admissible parameter vectors (solving stated relations when there are any)."""
    n = sum(layout(steps))
    out = []
    for _ in range(k * 4):
        theta = rng.uniform(-3, 3, n)
        if any(s["op"].startswith("given_") for s in steps):
            fit = least_squares(lambda th: constraint_residuals(steps, points(steps, th)), theta, xtol=1e-14,
                                ftol=1e-14, gtol=1e-14)
            theta = fit.x
            if max(np.abs(constraint_residuals(steps, points(steps, theta)))) > TOL:
                continue
        if not degenerate(steps, points(steps, theta), theta):
            out.append(theta)
        if len(out) == k:
            break
    if not out:
        raise Inconsistent("no realization satisfies the stated relations")
    return out


def predicate_values(q, P):
    """Residuals that vanish exactly at the special relations of the question's domain."""
    if q["domain"] == "line":
        (a, b), (c, d) = ([P[x] for x in e] for e in (q["a"], q["b"]))
        sin, cos = _sin_cos(b - a, d - c)
        coline = _sin_cos(b - a, c - a)[0] if np.linalg.norm(c - a) > 1e-9 else _sin_cos(b - a, d - a)[0]
        return {"parallel": sin, "perpendicular": cos, "coincide": abs(sin) + abs(coline)}
    t1, t2 = (_angle(*(P[x] for x in e)) for e in (q["a"], q["b"]))
    return {"equal": t1 - t2, "supplementary": t1 + t2 - np.pi, "complementary": t1 + t2 - np.pi / 2}


def linear_pair(q, realized) -> bool:
    """Do the two asked angles form a linear pair (shared vertex and arm, other arms opposite) in every realization?

    A linear pair sums to 180°, but angles that sum to 180° (a parallelogram's consecutive angles) need not be one.
    """
    def unit(v):
        n = np.linalg.norm(v)
        return v / n if n > 1e-9 else None

    def one(P):
        (x, y, z), (u, v, w) = ([P[n] for n in e] for e in (q["a"], q["b"]))
        if np.linalg.norm(y - v) > 1e-6:
            return False
        arms1, arms2 = [unit(x - y), unit(z - y)], [unit(u - v), unit(w - v)]
        if any(a is None for a in arms1 + arms2):
            return False
        for i in (0, 1):
            for j in (0, 1):
                if arms1[i] @ arms2[j] > 1 - 1e-6 and arms1[1 - i] @ arms2[1 - j] < -1 + 1e-6:
                    return True
        return False

    return bool(realized) and all(one(P) for P in realized)


def _angle(a, b, c):
    u, v = a - b, c - b
    return np.arctan2(abs(u[0] * v[1] - u[1] * v[0]), u @ v)


def reachable(steps, q, name, thetas) -> bool:
    """Can predicate `name` vanish at an admissible realization (stated relations kept)?"""
    def resid(th):
        P = points(steps, th)
        return [*constraint_residuals(steps, P), predicate_values(q, P)[name]]

    # the samples nearest the special position first, then a spread of others: a special position that only a
    # narrow part of the parameter space reaches is missed from the nearest samples alone
    order = sorted(range(len(thetas)), key=lambda i: abs(predicate_values(q, points(steps, thetas[i]))[name]))
    starts = [thetas[i] for i in order[:REACH_NEAREST] + order[REACH_NEAREST::REACH_STRIDE]][:REACH_STARTS]
    for theta in starts:
        fit = least_squares(resid, theta, xtol=1e-14, ftol=1e-14, gtol=1e-14, max_nfev=150)
        P = points(steps, fit.x)
        # coincident lines are a degenerate question, not a parallel position
        apart = q["domain"] != "line" or predicate_values(q, P)["coincide"] > 1e-6
        if max(np.abs(resid(fit.x))) < TOL and apart and not degenerate(steps, P, fit.x) and _elements_ok(q, P) \
                and _clear_of_coincidence(P):
            return True
    return False


SPECIAL_MARGIN = 1e-4  # a special position must hold with every two named points this far apart (x scale)


def _clear_of_coincidence(P) -> bool:
    """A special position found by least_squares must not be the limit of two named points running together: a
    search can drive X on an extension beyond Y to within 1e-5 of Y, where XS is 'perpendicular' only because XS
    has become YS. Genuine special positions leave room to spare."""
    return _named_apart(P, SPECIAL_MARGIN)


def _named_apart(P, margin: float) -> bool:
    """Every two named points at least `margin` x the figure's scale apart."""
    scale = max(1.0, max(np.abs(v).max() for v in P.values()))
    named = list(P.values())
    return all(np.linalg.norm(named[i] - named[j]) >= margin * scale
               for i in range(len(named)) for j in range(i + 1, len(named)))


def _elements_ok(q, P) -> bool:
    scale = max(1.0, max(np.abs(v).max() for v in P.values()))
    for e in (q["a"], q["b"]) if q["domain"] != "shape" else ():
        pts = [P[x] for x in e]
        if any(np.linalg.norm(pts[i] - pts[i + 1]) < 1e-6 * scale for i in range(len(pts) - 1)):
            return False
    return True


def _side(steps, q, th) -> tuple[str, float]:
    """('inside' | 'outside' | 'boundary', signed distance: positive outside) of the queried point."""
    P = points(steps, th)
    poly, p = Polygon([P[x] for x in q["shape"]]), Point(P[q["a"][0]])
    d = poly.boundary.distance(p)
    if d < 1e-9:
        return "boundary", 0.0
    return ("inside", -d) if poly.contains(p) else ("outside", d)


def other_side(steps, q, thetas, side: str) -> bool:
    """Can the queried point reach the side of the shape no sample showed? Pushes the signed distance across the
    boundary from the samples nearest it (least_squares on max(0, margin -/+ distance))."""
    sign = 1.0 if side == "inside" else -1.0  # from inside we look for positive (outside) distance
    margin = 1e-3

    def resid(th):
        return [*constraint_residuals(steps, points(steps, th)), max(0.0, margin - sign * _side(steps, q, th)[1])]

    order = sorted(thetas, key=lambda th: abs(_side(steps, q, th)[1]))[:REACH_STARTS // 2]
    for theta in order:
        fit = least_squares(resid, theta, max_nfev=200)
        got, _ = _side(steps, q, fit.x)
        if got not in (side, "boundary") and max(np.abs(resid(fit.x))) < TOL \
                and not degenerate(steps, points(steps, fit.x), fit.x):
            return True
    return False


def decide(steps, q, thetas) -> str:
    """The relation method B derives from the parsed text."""
    if q["domain"] == "shape":
        seen = {_side(steps, q, th)[0] for th in thetas}
        seen.discard("boundary")
        if len(seen) == 1:
            side = seen.pop()
            return "cannot" if other_side(steps, q, thetas, side) else side
        return "cannot"
    realized = [points(steps, th) for th in thetas]
    values = [predicate_values(q, P) for P in realized]
    names = ["parallel", "perpendicular"] if q["domain"] == "line" else ["equal", "supplementary", "complementary"]
    forced = [n for n in names if all(abs(v[n]) < TOL for v in values)]
    if forced:
        return forced[0]
    if any(reachable(steps, q, n, thetas) for n in names):
        return "cannot"
    return "intersecting" if q["domain"] == "line" else "none"
