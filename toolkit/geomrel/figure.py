"""Figures from stated facts: every named point is free in the plane; facts are equations (solved by least squares
from random starts) or open conditions (checked on each solution). A question is then decided on several solutions:
a relation holding on all of them is forced; one reachable by adding its equation is possible (so "Cannot be
inferred"); otherwise it never holds.

Facts (tuples, points as one-letter names, segments/lines as two-letter strings):
  ("par", "AB", "CD"), ("perp", "AB", "CD"), ("coll", "ABE"), ("mid", "M", "AB"), ("ratio", "P", "AB", t)
  P = A + t (B - A), ("eqlen", "AB", "CD"), ("lenratio", "AB", "CD", k), ("circle", name, center|None),
  ("on", circle, "P"), ("radius", circle, "AB", k) |AB| = k r, ("tangent", "AB", circle, "P"),
  ("angle", "ABC", degrees), ("anglesum", "ABC", "DEF", degrees), ("angleeq", "ABC", "DEF"),
  ("or", [fact, fact]) one of them, and open conditions ("between", "P", "AB"), ("beyond", "P", "AB") P past B,
  ("acute", "ABC"), ("obtuse", "ABC"), ("notright", "ABC"), ("notpar", ...), ("notperp", ...),
  ("noteqlen", ...), ("noncoll", "ABC"), ("convex", "ABCD"), ("inside", "P", "ABCD"), ("scalene", "ABC").
"""

from __future__ import annotations

import numpy as np
import shapely
from scipy.optimize import least_squares

TOL = 1e-7
APART = 1e-3  # two named points closer than this (x figure scale) are one point: a degenerate figure


class Figure:
    def __init__(self, facts: list[tuple], points: list[str]):
        self.facts = facts
        self.points = sorted(set(points))
        self.circles = sorted({f[1] for f in facts if f[0] == "circle"})
        self.center = {f[1]: f[2] for f in facts if f[0] == "circle"}
        self.polygons = [f[1] for f in facts if f[0] == "convex"]
        self.index = {p: i for i, p in enumerate(self.points)}
        self.n = 2 * len(self.points) + len(self.circles)

    def coords(self, x) -> dict:
        P = {p: np.array(x[2 * i:2 * i + 2]) for p, i in self.index.items()}
        base = 2 * len(self.points)
        for j, c in enumerate(self.circles):
            P["r:" + c] = abs(x[base + j])
        return P

    def centre(self, P, circle):
        return P[self.center[circle]] if self.center.get(circle) else None

    def residuals(self, x, extra=(), opens=()):
        P = self.coords(x)
        out = [x[0], x[1], x[2] - 1.0, x[3]] if len(self.points) >= 2 else []  # similarity fixed: A=(0,0), B=(1,0)
        for f in (*self.facts, *extra):
            out += equation(self, P, f)
        for f in (*self.facts, *opens):
            out += hinge(P, f)
        return np.array(out, dtype=float)

    def valid(self, x, extra_open=()) -> bool:
        P = self.coords(x)
        pts = np.array([P[p] for p in self.points])
        if not np.all(np.isfinite(pts)):
            return False
        scale = max(1.0, float(np.max(np.abs(pts))))
        d = np.linalg.norm(pts[:, None] - pts[None], axis=-1) + np.eye(len(pts)) * 1e9
        if d.min() < APART * scale or scale > 1e3:
            return False
        if any(P["r:" + c] < APART * scale for c in self.circles):
            return False
        return all(holds(self, P, f, scale) for f in (*self.facts, *extra_open))

    def start(self, rng) -> np.ndarray:
        """A random start with every polygon the text calls convex drawn convex (vertices in order round a circle):
        from a random start the solver rarely finds the convex order of five or more vertices."""
        x = rng.uniform(-2, 2, self.n)
        for name in self.polygons:
            c, r = rng.uniform(-1, 1, 2), rng.uniform(0.8, 1.5)
            turn = rng.uniform(0, 2 * np.pi) + (2 * np.pi / len(name)) * (np.arange(len(name))
                                                                         + rng.uniform(-0.2, 0.2, len(name)))
            sign = rng.choice([-1.0, 1.0])
            for k, p in enumerate(name):
                i = self.index[p]
                x[2 * i:2 * i + 2] = c + r * np.array([np.cos(sign * turn[k]), np.sin(sign * turn[k])])
        if len(self.points) >= 2:  # move the start by a similarity onto the fixed A = (0, 0), B = (1, 0)
            m = len(self.points)
            z = x[0:2 * m:2] + 1j * x[1:2 * m:2]
            d = z[1] - z[0]
            if abs(d) > 1e-3:
                z = (z - z[0]) / d
                x[0:2 * m:2], x[1:2 * m:2] = z.real, z.imag
                x[2 * m:] /= abs(d)
        return x

    def solve(self, rng, k: int = 8, tries: int = 40, extra=(), starts=None, opens=(), patience: int = 12
              ) -> list[np.ndarray]:
        found = []
        for i in range(tries):
            if i >= patience and not found and starts is None:
                break  # premises no start satisfies are not worth 40 tries
            x0 = starts[i % len(starts)] + rng.normal(0, 0.3, self.n) if starts is not None and i < 2 * len(starts) \
                else self.start(rng)
            with np.errstate(all="ignore"):
                fit = least_squares(lambda x: self.residuals(x, extra, opens), x0, xtol=1e-13, ftol=1e-13, gtol=1e-13,
                                    max_nfev=100)
            if np.max(np.abs(fit.fun), initial=0) < TOL and self.valid(fit.x, opens):
                found.append(fit.x)
                if len(found) == k:
                    break
        return found


def _vec(P, seg):
    return P[seg[1]] - P[seg[0]]


def _cross(u, v):
    return u[0] * v[1] - u[1] * v[0]


def _unit(v):
    n = np.linalg.norm(v)
    return v / n if n > 1e-12 else v * 0


def _sin(u, v):
    return _cross(_unit(u), _unit(v))


def _cos(u, v):
    return float(np.dot(_unit(u), _unit(v)))


def angle_of(P, ang) -> float:
    u, v = P[ang[0]] - P[ang[1]], P[ang[2]] - P[ang[1]]
    return float(np.degrees(np.arctan2(abs(_cross(u, v)), np.dot(u, v))))


def equation(fig, P, f) -> list[float]:
    op = f[0]
    if op == "par":
        return [_sin(_vec(P, f[1]), _vec(P, f[2]))]
    if op == "perp":
        return [_cos(_vec(P, f[1]), _vec(P, f[2]))]
    if op == "coll":
        a, b = P[f[1][0]], P[f[1][1]]
        return [_sin(b - a, P[c] - a) for c in f[1][2:]]
    if op == "mid":
        return list(P[f[1]] - (P[f[2][0]] + P[f[2][1]]) / 2)
    if op == "ratio":
        a, b = P[f[2][0]], P[f[2][1]]
        return list(P[f[1]] - a - f[3] * (b - a))
    if op == "eqlen":
        return [np.linalg.norm(_vec(P, f[1])) - np.linalg.norm(_vec(P, f[2]))]
    if op == "lenratio":
        return [np.linalg.norm(_vec(P, f[1])) - f[3] * np.linalg.norm(_vec(P, f[2]))]
    if op == "on":
        c = fig.centre(P, f[1])
        return [np.linalg.norm(P[f[2]] - c) - P["r:" + f[1]]] if c is not None else []
    if op == "radius":
        return [np.linalg.norm(_vec(P, f[2])) - f[3] * P["r:" + f[1]]]
    if op == "tangent":
        c, t = fig.centre(P, f[2]), P[f[3]]
        out = [_sin(_vec(P, f[1]), t - P[f[1][0]]) if f[3] != f[1][0] else _sin(_vec(P, f[1]), t - P[f[1][1]])]
        if c is not None:
            out += [np.linalg.norm(t - c) - P["r:" + f[2]], _cos(_vec(P, f[1]), t - c)]
        return out
    if op == "angle":
        return [np.radians(angle_of(P, f[1]) - f[2])]
    if op == "anglesum":
        return [np.radians(angle_of(P, f[1]) + angle_of(P, f[2]) - f[3])]
    if op == "angleeq":
        return [np.radians(angle_of(P, f[1]) - angle_of(P, f[2]))]
    if op == "or":
        vals = [equation(fig, P, g) for g in f[1]]
        return [float(np.prod([np.linalg.norm(v) for v in vals]))]
    return []


MARGIN = 0.02


def hinge(P, f) -> list[float]:
    """Zero when an open condition holds with a margin, growing as it is violated: steers the solver into the
    region the condition allows (the condition itself is still checked exactly by `holds`)."""
    op = f[0]
    if op in ("between", "beyond"):
        a, b = P[f[2][0]], P[f[2][1]]
        t = np.dot(P[f[1]] - a, b - a) / max(np.dot(b - a, b - a), 1e-18)
        if op == "between":
            return [max(0.0, MARGIN - t) + max(0.0, t - 1 + MARGIN)]
        return [max(0.0, 1 + MARGIN - t)]
    if op == "convex":
        ring = [P[x] for x in f[1]]
        n = len(ring)
        turns = [_sin(ring[(i + 1) % n] - ring[i], ring[(i + 2) % n] - ring[(i + 1) % n]) for i in range(n)]
        sign = 1.0 if sum(turns) >= 0 else -1.0
        return [max(0.0, 0.1 - sign * t) for t in turns]
    if op == "inside":
        ring = [P[x] for x in f[2]]
        n = len(ring)
        orient = 1.0 if _cross(ring[1] - ring[0], ring[2] - ring[0]) >= 0 else -1.0
        return [max(0.0, MARGIN - orient * _cross(_unit(ring[(i + 1) % n] - ring[i]), P[f[1]] - ring[i]))
                for i in range(n)]
    if op == "sameside":
        line = _unit(_vec(P, f[3]))
        return [max(0.0, MARGIN - _cross(line, P[f[1]] - P[f[3][0]]) * _cross(line, P[f[2]] - P[f[3][0]]))]
    return []


def holds(fig, P, f, scale) -> bool:
    """Open conditions (inequalities); equations are left to the solver."""
    op, eps = f[0], 1e-6
    if op in ("between", "beyond"):
        a, b = P[f[2][0]], P[f[2][1]]
        t = np.dot(P[f[1]] - a, b - a) / max(np.dot(b - a, b - a), 1e-18)
        return bool(0 < t < 1) if op == "between" else bool(t > 1)
    if op == "acute":
        return 1e-4 < angle_of(P, f[1]) < 90 - 1e-4
    if op == "obtuse":
        return 90 + 1e-4 < angle_of(P, f[1]) < 180 - 1e-4
    if op == "notright":
        return abs(angle_of(P, f[1]) - 90) > 1e-4
    if op == "notpar":
        return abs(_sin(_vec(P, f[1]), _vec(P, f[2]))) > eps
    if op == "notperp":
        return abs(_cos(_vec(P, f[1]), _vec(P, f[2]))) > eps
    if op == "noteqlen":
        return abs(np.linalg.norm(_vec(P, f[1])) - np.linalg.norm(_vec(P, f[2]))) > eps * scale
    if op == "noncoll":
        a = P[f[1][0]]
        return any(abs(_sin(P[f[1][1]] - a, P[c] - a)) > eps for c in f[1][2:])
    if op == "scalene":
        a, b, c = (P[x] for x in f[1])
        lens = sorted([np.linalg.norm(a - b), np.linalg.norm(b - c), np.linalg.norm(c - a)])
        return lens[1] - lens[0] > eps * scale and lens[2] - lens[1] > eps * scale
    if op == "convex":
        return convex([P[x] for x in f[1]])
    if op == "simple":
        return shapely.Polygon([P[x] for x in f[1]]).is_valid
    if op == "sameside":
        line = _vec(P, f[3])
        return _cross(line, P[f[1]] - P[f[3][0]]) * _cross(line, P[f[2]] - P[f[3][0]]) > eps * scale * scale
    if op == "inside":
        return point_in(P[f[1]], [P[x] for x in f[2]]) > 0
    return True


def convex(ring) -> bool:
    n = len(ring)
    turns = [_cross(ring[(i + 1) % n] - ring[i], ring[(i + 2) % n] - ring[(i + 1) % n]) for i in range(n)]
    scale = max(1.0, max(float(np.max(np.abs(p))) for p in ring)) ** 2
    if not (all(t > 1e-6 * scale for t in turns) or all(t < -1e-6 * scale for t in turns)):
        return False
    total = sum(np.arctan2(_cross(ring[(i + 1) % n] - ring[i], ring[(i + 2) % n] - ring[(i + 1) % n]),
                           np.dot(ring[(i + 1) % n] - ring[i], ring[(i + 2) % n] - ring[(i + 1) % n]))
                for i in range(n))
    return abs(abs(total) - 2 * np.pi) < 1e-6  # one turn: a simple (not star-shaped) polygon


def point_in(p, ring, eps=1e-7) -> int:
    """+1 strictly inside a convex ring, 0 on its boundary, -1 outside."""
    n = len(ring)
    orient = np.sign(_cross(ring[1] - ring[0], ring[2] - ring[0]))
    scale = max(1.0, max(float(np.max(np.abs(q))) for q in ring))
    sides = [orient * _cross(ring[(i + 1) % n] - ring[i], p - ring[i]) / max(np.linalg.norm(ring[(i + 1) % n]
                                                                                           - ring[i]), 1e-12)
             for i in range(n)]
    if min(sides) < -eps * scale:
        return -1
    return 0 if min(sides) <= eps * scale else 1
