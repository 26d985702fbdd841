"""Method B, part 2: float64 realizations of parsed steps and relation decisions.

Free quantities are drawn at random (K samples). Everything is computed for many parameter vectors at
once: `points` takes theta of shape (n,) or (B, n) and gives each named point as an array (..., 2).
Stated relations ("AB ⊥ EF") are solved per sample with scipy least_squares. The search for special
positions (∥, ⊥, equal angles, the other side of a boundary) first bisects between samples on either
side of the position, then runs one batched Levenberg-Marquardt from many starts, for every candidate
relation together. A relation holding at every sample is forced; one reached with residual ~0 at a
non-degenerate realization is possible; shapely decides containment.
"""

from __future__ import annotations

import numpy as np
import shapely
from scipy.optimize import least_squares

TOL = 1e-7
POLISHED = 1e-13
REACH_NEAREST, REACH_STRIDE, REACH_STARTS = 2, 5, 8  # Levenberg-Marquardt starts per special position
BISECT_PAIRS, BISECT_STEPS = 16, 56  # sample pairs on either side of a special position, halvings per pair
LM_ITERS = 60
N_PARAMS = {"triangle": 6, "right_triangle": 5, "isosceles": 5, "equilateral": 4, "parallelogram": 6,
            "rectangle": 5, "square": 4, "rhombus": 5, "trapezoid": 7, "on_segment": 1, "extension": 1,
            "parallel": 1, "perpendicular": 1, "on_circle": 1, "free": 2, "polygon": None}
SHAPE_OPS = {"triangle", "right_triangle", "isosceles", "equilateral", "parallelogram", "rectangle", "square",
             "rhombus", "trapezoid", "polygon"}


class Inconsistent(Exception):
    pass


def _rot(v):
    return np.stack([-v[..., 1], v[..., 0]], axis=-1)


def _dot(u, v):
    return np.sum(u * v, axis=-1)


def _cross(u, v):
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


def _norm(v):
    return np.sqrt(_dot(v, v))


def _turn(v, ang):
    """v rotated by ang (radians)."""
    return np.cos(ang)[..., None] * v + np.sin(ang)[..., None] * _rot(v)


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
    """Coordinates of every named point, each (..., 2), for parameter vectors theta (..., n)."""
    theta = np.asarray(theta, dtype=float)
    P, i = {}, 0
    for s, size in zip(steps, layout(steps), strict=True):
        th, i = theta[..., i:i + size], i + size
        op, pts = s["op"], s["pts"]
        if op in ("triangle", "polygon", "parallelogram"):
            for j, name in enumerate(pts[:3] if op == "parallelogram" else pts):
                P[name] = th[..., 2 * j:2 * j + 2]
            if op == "parallelogram":
                a, b, d = pts[0], pts[1], pts[3]
                P[d] = P.pop(pts[2])
                P[pts[2]] = P[b] + P[d] - P[a]
        elif op == "right_triangle":
            a, b, c = pts
            P[b], P[a] = th[..., 0:2], th[..., 2:4]
            P[c] = P[b] + th[..., 4:5] * _rot(P[a] - P[b])
        elif op in ("isosceles", "equilateral"):
            a, b, c = pts
            P[b], P[c] = th[..., 0:2], th[..., 2:4]
            k = th[..., 4:5] if op == "isosceles" else np.sqrt(3) / 2
            P[a] = (P[b] + P[c]) / 2 + k * _rot(P[c] - P[b])
        elif op in ("rectangle", "square", "rhombus", "trapezoid"):
            a, b, c, d = pts
            P[a], P[b] = th[..., 0:2], th[..., 2:4]
            ab = P[b] - P[a]
            if op == "rectangle":
                P[d] = P[a] + th[..., 4:5] * _rot(ab)
            elif op == "square":
                P[d] = P[a] + _rot(ab)
            elif op == "rhombus":
                P[d] = P[a] + _turn(ab, th[..., 4])
            else:
                P[d] = th[..., 4:6]
            P[c] = P[d] + _squash(th[..., 6:7], "unit") * ab if op == "trapezoid" else P[b] + P[d] - P[a]
        elif op == "midpoint":
            P[pts[0]] = (P[pts[1]] + P[pts[2]]) / 2
        elif op in ("on_segment", "extension"):
            t = _squash(th[..., 0:1], "unit" if op == "on_segment" else "gt1")
            P[pts[0]] = P[pts[1]] + t * (P[pts[2]] - P[pts[1]])
        elif op == "foot":
            h, p, x, y = pts
            d = P[y] - P[x]
            P[h] = P[x] + (_dot(P[p] - P[x], d) / _dot(d, d))[..., None] * d
        elif op == "reflect":
            P[pts[0]] = 2 * P[pts[2]] - P[pts[1]]
        elif op in ("parallel", "perpendicular"):
            q, p, x, y = pts
            d = P[y] - P[x]
            P[q] = P[p] + th[..., 0:1] * (d if op == "parallel" else _rot(d))
        elif op == "on_circle":
            p, x, y = pts
            o = (P[x] + P[y]) / 2
            P[p] = o + _turn(P[x] - o, th[..., 0])
        elif op == "free":
            P[pts[0]] = th[..., 0:2]
        elif op == "centroid":
            P[pts[0]] = (P[pts[1]] + P[pts[2]] + P[pts[3]]) / 3
    return P


def _sin_cos(u, v):
    nn = _norm(u) * _norm(v)
    return _cross(u, v) / nn, _dot(u, v) / nn


def constraint_residuals(steps, P):
    out = []
    for s in steps:
        if s["op"] in ("given_parallel", "given_perpendicular"):
            a, b, c, d = (P[x] for x in s["pts"])
            sin, cos = _sin_cos(b - a, d - c)
            out.append(sin if s["op"] == "given_parallel" else cos)
    return out


def _scale(P):
    return np.maximum(1.0, np.max(np.abs(np.stack(list(P.values()))), axis=(0, -1)))


def _named_apart(P, margin: float):
    """Every two named points at least `margin` x the figure's scale apart (per realization)."""
    X = np.stack(list(P.values()))
    i, j = np.triu_indices(len(X), 1)
    return np.all(_norm(X[i] - X[j]) >= margin * _scale(P), axis=0)


def degenerate(steps, P):
    """Shapes must keep area, derived steps need distinct defining points, every coordinate finite, and two
    names are two points (a point on a circle may not run into the diameter's far end, ...)."""
    scale = _scale(P)
    bad = ~np.all(np.isfinite(np.stack(list(P.values()))), axis=(0, -1)) | ~_named_apart(P, 1e-6)
    for s in steps:
        pts = [P[x] for x in s["pts"] if x in P]
        if s["op"] in SHAPE_OPS and len(pts) >= 3:
            for j in range(len(pts)):
                u, v = pts[(j + 1) % len(pts)] - pts[j], pts[(j + 2) % len(pts)] - pts[j]
                bad = bad | (np.abs(_cross(u, v)) < 1e-6 * scale * scale)
        elif len(pts) >= 2 and s["op"] != "free":
            bad = bad | (_norm(pts[-1] - pts[-2]) < 1e-6 * scale)
        if s["op"] in ("parallel", "perpendicular"):
            bad = bad | (_norm(pts[0] - pts[1]) < 1e-6 * scale)
    return bad


def realizations(steps, k, rng):
    """k admissible parameter vectors (K, n) (solving stated relations when there are any)."""
    n = sum(layout(steps))
    if not any(s["op"].startswith("given_") for s in steps):
        thetas = rng.uniform(-3, 3, (k * 4, n))
        with np.errstate(all="ignore"):
            out = thetas[~degenerate(steps, points(steps, thetas))][:k]
    else:
        out = []
        for _ in range(k * 4):
            theta = rng.uniform(-3, 3, n)
            fit = least_squares(lambda th: constraint_residuals(steps, points(steps, th)), theta, xtol=1e-14,
                                ftol=1e-14, gtol=1e-14)
            theta = fit.x
            if max(np.abs(constraint_residuals(steps, points(steps, theta)))) > TOL:
                continue
            if not degenerate(steps, points(steps, theta)):
                out.append(theta)
            if len(out) == k:
                break
        out = np.array(out)
    if not len(out):
        raise Inconsistent("no realization satisfies the stated relations")
    return out


def predicate_values(q, P):
    """Residuals that vanish exactly at the special relations of the question's domain."""
    if q["domain"] == "line":
        (a, b), (c, d) = ([P[x] for x in e] for e in (q["a"], q["b"]))
        sin, cos = _sin_cos(b - a, d - c)
        coline = np.where(_norm(c - a) > 1e-9, _sin_cos(b - a, c - a)[0], _sin_cos(b - a, d - a)[0])
        return {"parallel": sin, "perpendicular": cos, "coincide": np.abs(sin) + np.abs(coline)}
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
    return np.arctan2(np.abs(_cross(u, v)), _dot(u, v))


SPECIAL_MARGIN = 1e-4  # a special position must hold with every two named points this far apart (x scale)


def _elements_ok(q, P):
    scale = _scale(P)
    ok = np.ones(np.shape(scale), dtype=bool)
    for e in (q["a"], q["b"]) if q["domain"] != "shape" else ():
        for x, y in zip(e[:-1], e[1:], strict=True):
            ok = ok & (_norm(P[x] - P[y]) >= 1e-6 * scale)
    return ok


def _special_ok(steps, q, P):
    """A special position found by search counts only at a proper figure: not degenerate, the queried elements
    proper, lines not coinciding, and no two named points running together (a search can drive X on an
    extension beyond Y to within 1e-5 of Y, where XS is 'perpendicular' only because XS has become YS; genuine
    special positions leave room to spare)."""
    ok = ~degenerate(steps, P) & _elements_ok(q, P) & _named_apart(P, SPECIAL_MARGIN)
    if q["domain"] == "line":
        ok = ok & (predicate_values(q, P)["coincide"] > 1e-6)
    return ok


def _residuals(steps, q, names):
    """resid(theta (B, n), which (B,)) -> (B, m): stated relations, then predicate names[which]."""
    def resid(theta, which):
        P = points(steps, theta)
        values = predicate_values(q, P)
        pred = np.choose(which, [values[n] for n in names])
        return np.stack([*constraint_residuals(steps, P), pred], axis=-1)
    return resid


def _bisect(resid, lo, hi, which):
    """Points where the last residual changes sign between lo (positive) and hi (negative)."""
    for _ in range(BISECT_STEPS):
        mid = (lo + hi) / 2
        up = (resid(mid, which)[:, -1] > 0)[:, None]
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    return (lo + hi) / 2


def _jacobian(resid, theta, which, r):
    b, n = theta.shape
    h = 1e-7 * np.maximum(1.0, np.abs(theta))
    shifted = theta[:, None, :] + np.eye(n)[None] * h[:, None, :]
    rs = resid(shifted.reshape(b * n, n), np.repeat(which, n)).reshape(b, n, -1)
    return np.nan_to_num(((rs - r[:, None, :]) / h[:, :, None]).transpose(0, 2, 1), nan=0.0, posinf=0.0,
                         neginf=0.0)


def levenberg_marquardt(resid, theta, which, accept, iters: int = LM_ITERS):
    """Batched Levenberg-Marquardt towards resid == 0 from every row of theta; True when some row reaches
    |resid| < TOL where accept(row) holds. Minimum-norm damped steps, since there are fewer residuals than
    parameters. A row is judged early only once polished to POLISHED: a degenerate limit often sits at a double
    root, where |resid| falls below TOL while two points are still 1e-4 apart and keeps falling as they merge."""
    r = resid(theta, which)
    cost = np.sum(r * r, axis=-1)
    lam = np.full(len(theta), 1e-3)
    tried = np.zeros(len(theta), dtype=bool)
    for _ in range(iters):
        J = _jacobian(resid, theta, which, np.nan_to_num(r))
        JJt = J @ J.transpose(0, 2, 1)
        m = JJt.shape[-1]
        damp = lam * (np.trace(JJt, axis1=1, axis2=2) / m + 1e-12)
        A = JJt + damp[:, None, None] * np.eye(m)
        step = -np.einsum("bmn,bm->bn", J, np.linalg.solve(A, np.nan_to_num(r)[..., None])[..., 0])
        trial = theta + step
        rt = resid(trial, which)
        ct = np.sum(rt * rt, axis=-1)
        better = np.isfinite(ct) & (ct < cost)
        theta = np.where(better[:, None], trial, theta)
        r, cost = np.where(better[:, None], rt, r), np.where(better, ct, cost)
        lam = np.where(better, lam / 3, lam * 4)
        done = np.all(np.abs(r) < POLISHED, axis=-1) & ~tried
        if done.any():
            if accept(theta[done]).any():
                return True
            tried |= done
        if np.all(tried | (lam > 1e10)):
            break
    near = np.all(np.abs(r) < TOL, axis=-1) & ~tried
    return bool(near.any() and accept(theta[near]).any())


def reachable(steps, q, names, thetas) -> bool:
    """Can one of the predicates `names` vanish at an admissible realization (stated relations kept)?"""
    resid = _residuals(steps, q, names)
    constrained = any(s["op"].startswith("given_") for s in steps)

    def accept(theta):
        return _special_ok(steps, q, points(steps, theta))

    values = predicate_values(q, points(steps, thetas))
    lo, hi, which_b, starts, which_s = [], [], [], [], []
    for w, name in enumerate(names):
        f = values[name]
        order = np.argsort(np.abs(np.nan_to_num(f, nan=np.inf)), kind="stable")  # ties: the same order on any CPU
        # the samples nearest the special position first, then a spread of others: a special position that only
        # a narrow part of the parameter space reaches is missed from the nearest samples alone
        pick = np.concatenate([order[:REACH_NEAREST], order[REACH_NEAREST::REACH_STRIDE]])[:REACH_STARTS]
        starts.append(thetas[pick])
        which_s += [w] * len(pick)
        if not constrained:  # without stated relations every point between two samples is a realization
            pos = [i for i in order if f[i] > 0][:4]
            neg = [i for i in order if f[i] < 0][:4]
            pairs = [(i, j) for i in pos for j in neg][:BISECT_PAIRS]
            lo += [thetas[i] for i, _ in pairs]
            hi += [thetas[j] for _, j in pairs]
            which_b += [w] * len(pairs)
    if lo:
        roots = _bisect(resid, np.array(lo), np.array(hi), np.array(which_b))
        near = np.all(np.abs(resid(roots, np.array(which_b))) < TOL, axis=-1)
        if near.any() and accept(roots[near]).any():
            return True
    return levenberg_marquardt(resid, np.concatenate(starts), np.array(which_s), accept)


def _sides(steps, q, theta):
    """Signed distance of the queried point to the shape's boundary (positive outside; 0 on it), per row."""
    P = points(steps, theta)
    ring = np.stack([P[x] for x in q["shape"]], axis=-2)
    polys = shapely.polygons(ring)
    pt = shapely.points(P[q["a"][0]])
    d = shapely.distance(shapely.boundary(polys), pt)
    return np.where(shapely.contains(polys, pt), -d, d)


def other_side(steps, q, thetas, side: str) -> bool:
    """Can the queried point reach the side of the shape no sample showed? Pushes the signed distance across the
    boundary from the samples nearest it (Levenberg-Marquardt on max(0, margin -/+ distance))."""
    sign = 1.0 if side == "inside" else -1.0  # from inside we look for positive (outside) distance
    margin = 1e-3

    def resid(theta, which):
        hinge = np.maximum(0.0, margin - sign * _sides(steps, q, theta))
        return np.stack([*constraint_residuals(steps, points(steps, theta)), hinge], axis=-1)

    def accept(theta):
        d = _sides(steps, q, theta)
        return (sign * d > 1e-9) & ~degenerate(steps, points(steps, theta))

    order = np.argsort(np.abs(_sides(steps, q, thetas)), kind="stable")[:REACH_STARTS // 2]
    return levenberg_marquardt(resid, thetas[order], np.zeros(len(order), dtype=int), accept, iters=LM_ITERS)


def decide(steps, q, thetas) -> str:
    """The relation method B derives from the parsed text."""
    if q["domain"] == "shape":
        d = _sides(steps, q, thetas)
        seen = {"inside" if x < 0 else "outside" for x in d if abs(x) >= 1e-9}
        if len(seen) == 1:
            side = seen.pop()
            return "cannot" if other_side(steps, q, thetas, side) else side
        return "cannot"
    values = predicate_values(q, points(steps, thetas))
    names = ["parallel", "perpendicular"] if q["domain"] == "line" else ["equal", "supplementary", "complementary"]
    forced = [n for n in names if np.all(np.abs(values[n]) < TOL)]
    if forced:
        return forced[0]
    if reachable(steps, q, names, thetas):
        return "cannot"
    return "intersecting" if q["domain"] == "line" else "none"
