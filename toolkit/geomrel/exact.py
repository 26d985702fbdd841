"""Method A: exact labels from sympy coordinates with symbolic free parameters.

Every point is a pair of rational functions of the free parameters (circle points use the
rational parametrisation ((1-s^2)/(1+s^2), 2s/(1+s^2)); the one irrational constant, sqrt(3)/2
of an equilateral triangle, is a symbol reduced by k^2 = 3/4). A relation is *forced* when its
predicate is identically zero, *impossible* when the predicate's numerator is, up to factors
known to be non-zero (shape non-degeneracy, parameter signs), a non-zero constant, and
*possible* when an exact admissible witness is found. Anything else is left undecided and the
generator draws another construction, so every emitted label is proven.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import sympy as sp

K3 = sp.Symbol("k3", positive=True)  # sqrt(3)/2
K3_VALUE = sp.sqrt(3) / 2


def rot(v):
    return (-v[1], v[0])


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1])


def add(a, b):
    return (a[0] + b[0], a[1] + b[1])


def scale(t, v):
    return (t * v[0], t * v[1])


def cross(u, v):
    return u[0] * v[1] - u[1] * v[0]


def dot(u, v):
    return u[0] * v[0] + u[1] * v[1]


@dataclass
class Param:
    symbol: sp.Symbol
    domain: str  # real | nonzero | unit (0,1) | gt1 (1,inf)


@dataclass
class Realization:
    points: dict = field(default_factory=dict)
    params: list = field(default_factory=list)
    nonzero: list = field(default_factory=list)  # expressions the construction asserts are non-zero
    shapes: list = field(default_factory=list)  # (op, pts) of polygons, for containment questions

    def param(self, domain: str) -> sp.Symbol:
        s = sp.Symbol(f"t{len(self.params)}", real=True)
        self.params.append(Param(s, domain))
        return s

    def free_point(self):
        # Every relation asked about is similarity-invariant: the first two free points may be fixed.
        self._free = getattr(self, "_free", 0) + 1
        if self._free <= 2:
            return (sp.Integer(self._free - 1), sp.Integer(0))
        return (self.param("real"), self.param("real"))


def _rotation(s):
    d = 1 + s * s
    return lambda v: (((1 - s * s) * v[0] - 2 * s * v[1]) / d, (2 * s * v[0] + (1 - s * s) * v[1]) / d)


def realize(steps: list[dict]) -> Realization:
    """Exact coordinates of every point of a construction."""
    r = Realization()
    P = r.points
    for step in steps:
        op, pts = step["op"], step["pts"]
        if op == "triangle":
            for name in pts:
                P[name] = r.free_point()
        elif op == "right_triangle":
            a, b, c = pts
            P[b], P[a] = r.free_point(), r.free_point()
            P[c] = add(P[b], scale(r.param("nonzero"), rot(sub(P[a], P[b]))))
        elif op == "isosceles":
            a, b, c = pts
            P[b], P[c] = r.free_point(), r.free_point()
            mid = scale(sp.Rational(1, 2), add(P[b], P[c]))
            P[a] = add(mid, scale(r.param("nonzero"), rot(sub(P[c], P[b]))))
        elif op == "equilateral":
            a, b, c = pts
            P[b], P[c] = r.free_point(), r.free_point()
            mid = scale(sp.Rational(1, 2), add(P[b], P[c]))
            P[a] = add(mid, scale(K3, rot(sub(P[c], P[b]))))
        elif op in ("parallelogram", "rectangle", "square", "rhombus", "trapezoid"):
            a, b, c, d = pts
            P[a], P[b] = r.free_point(), r.free_point()
            ab = sub(P[b], P[a])
            if op == "parallelogram":
                P[d] = r.free_point()
            elif op == "rectangle":
                P[d] = add(P[a], scale(r.param("nonzero"), rot(ab)))
            elif op == "square":
                P[d] = add(P[a], rot(ab))
            elif op == "rhombus":
                P[d] = add(P[a], _rotation(r.param("nonzero"))(ab))
            else:
                P[d] = r.free_point()
            if op == "trapezoid":
                P[c] = add(P[d], scale(r.param("unit"), ab))
            else:
                P[c] = add(P[b], sub(P[d], P[a]))
        elif op == "midpoint":
            m, x, y = pts
            P[m] = scale(sp.Rational(1, 2), add(P[x], P[y]))
        elif op in ("on_segment", "extension"):
            p, x, y = pts
            P[p] = add(P[x], scale(r.param("unit" if op == "on_segment" else "gt1"), sub(P[y], P[x])))
        elif op == "foot":
            h, p, x, y = pts
            d = sub(P[y], P[x])
            P[h] = add(P[x], scale(dot(sub(P[p], P[x]), d) / dot(d, d), d))
        elif op == "reflect":
            q, p, c = pts
            P[q] = sub(scale(2, P[c]), P[p])
        elif op in ("parallel", "perpendicular"):
            q, p, x, y = pts
            d = sub(P[y], P[x])
            P[q] = add(P[p], scale(r.param("nonzero"), d if op == "parallel" else rot(d)))
        elif op == "on_circle":
            p, x, y = pts
            o = scale(sp.Rational(1, 2), add(P[x], P[y]))
            P[p] = add(o, _rotation(r.param("nonzero"))(sub(P[x], o)))
        elif op == "free":
            P[pts[0]] = r.free_point()
        elif op == "centroid":
            g, x, y, z = pts
            P[g] = scale(sp.Rational(1, 3), add(add(P[x], P[y]), P[z]))
        else:
            raise ValueError(f"unknown op {op!r}")
        _assert_nondegenerate(r, op, pts)
    return r


def _assert_nondegenerate(r: Realization, op: str, pts: list[str]) -> None:
    P = r.points
    if op in ("triangle", "right_triangle", "isosceles", "equilateral", "parallelogram", "rectangle", "square",
              "rhombus", "trapezoid"):
        r.nonzero.append(cross(sub(P[pts[1]], P[pts[0]]), sub(P[pts[2]], P[pts[0]])))
        if len(pts) == 4:
            r.nonzero.append(cross(sub(P[pts[2]], P[pts[1]]), sub(P[pts[3]], P[pts[1]])))
            r.nonzero.append(cross(sub(P[pts[3]], P[pts[2]]), sub(P[pts[0]], P[pts[2]])))
        r.shapes.append((op, list(pts)))
    elif op in ("midpoint", "on_segment", "extension", "on_circle"):
        r.nonzero.append(dot(sub(P[pts[2]], P[pts[1]]), sub(P[pts[2]], P[pts[1]])))
    elif op in ("foot", "parallel", "perpendicular"):
        r.nonzero.append(dot(sub(P[pts[3]], P[pts[2]]), sub(P[pts[3]], P[pts[2]])))


# ---------------------------------------------------------------- exact algebra helpers

def numerator(expr) -> sp.Expr:
    num, _ = sp.fraction(sp.together(expr))
    num = sp.expand(num)
    if num.has(K3):
        num = sp.expand(sp.Poly(num, K3).rem(sp.Poly(K3**2 - sp.Rational(3, 4), K3)).as_expr())
    return num


def is_zero(expr) -> bool:
    return numerator(expr) == 0


def _factor_key(f) -> sp.Expr:
    f = sp.expand(f)
    if f.could_extract_minus_sign():
        f = -f
    return sp.expand(f / sp.Poly(f, *sorted(f.free_symbols, key=str)).LC()) if f.free_symbols else sp.Integer(1)


def known_nonzero_factors(r: Realization) -> set:
    keys = {_factor_key(K3)}
    for p in r.params:
        if p.domain in ("nonzero", "unit", "gt1"):
            keys.add(_factor_key(p.symbol))
        if p.domain in ("unit", "gt1"):
            keys.add(_factor_key(p.symbol - 1))
        keys.add(_factor_key(1 + p.symbol**2))
    for expr in r.nonzero:
        num = numerator(expr)
        if num == 0:
            continue
        for f, _ in sp.factor_list(num)[1]:
            keys.add(_factor_key(f))
    return keys


def residual_factors(expr, known: set) -> list:
    """Factors of expr's numerator that are not known to be non-zero (empty: never zero)."""
    num = numerator(expr)
    if num == 0:
        raise ValueError("identically zero")
    return [f for f, _ in sp.factor_list(num)[1] if _factor_key(f) not in known]


def random_value(rng: random.Random, domain: str) -> sp.Rational:
    if domain == "unit":
        q = rng.randint(2, 9)
        return sp.Rational(rng.randint(1, q - 1), q)
    if domain == "gt1":
        return 1 + sp.Rational(rng.randint(1, 9), rng.randint(1, 5))
    while True:
        v = sp.Rational(rng.randint(-9, 9), rng.randint(1, 4))
        if v != 0:
            return v


def admissible(r: Realization, values: dict, extra_nonzero=()) -> bool:
    for p in r.params:
        v = values[p.symbol]
        if not v.is_real:
            return False
        if p.domain == "nonzero" and v == 0:
            return False
        if p.domain == "unit" and not (0 < v < 1):
            return False
        if p.domain == "gt1" and not v > 1:
            return False
    full = {**values, K3: K3_VALUE}
    for expr in [*r.nonzero, *extra_nonzero]:
        if evaluate(expr, full) == 0:
            return False
    # two names for one point (a foot landing on a vertex) is a degenerate figure, as in constructions
    at = {tuple(evaluate(c, full) for c in xy) for xy in r.points.values()}
    return len(at) == len(r.points)


def random_assignment(r: Realization, rng: random.Random) -> dict:
    return {p.symbol: random_value(rng, p.domain) for p in r.params}


def find_root(r: Realization, factors: list, rng: random.Random, extra_nonzero=(), tries: int = 24) -> dict | None:
    """An exact admissible assignment where one of `factors` vanishes, or None."""
    domains = {p.symbol: p.domain for p in r.params}
    for i in range(tries):
        f = factors[i % len(factors)]
        syms = [s for s in sorted(f.free_symbols, key=str) if s in domains and sp.degree(f, s) <= 2]
        if not syms:
            continue
        var = rng.choice(syms)
        values = random_assignment(r, rng)
        g = sp.expand(f.subs({s: v for s, v in values.items() if s != var}).subs(K3, K3_VALUE))
        if g == 0 or not g.has(var):
            continue
        for root in sp.solve(g, var):
            if not root.is_real:
                continue
            values[var] = sp.nsimplify(root) if root.is_Rational else root
            if admissible(r, values, extra_nonzero):
                return values
    return None


def evaluate(expr, values: dict):
    value = sp.sympify(expr).xreplace({**values, K3: K3_VALUE})
    return value if value.is_Rational else sp.nsimplify(sp.radsimp(sp.expand(value)))


def witness_json(r: Realization, values: dict, relation: str) -> dict:
    """A witness: parameter values and the point coordinates they give (strings of exact numbers)."""
    full = {**values, K3: K3_VALUE}
    return {"relation": relation,
            "params": {str(s): str(v) for s, v in values.items()},
            "points": {n: [str(evaluate(c, full)) for c in xy] for n, xy in sorted(r.points.items())}}


def coincident_pair(r: Realization, rng: random.Random) -> tuple[str, str] | None:
    """Two differently named points that coincide for every parameter value (e.g. the foot of the perpendicular
    from a square's vertex to the adjacent side is the corner itself), or None. A random exact assignment rules
    most pairs out at once; only pairs equal there are checked symbolically."""
    values = {**random_assignment(r, rng), K3: K3_VALUE}
    names = sorted(r.points)
    at = {n: tuple(evaluate(c, values) for c in r.points[n]) for n in names}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if at[a] == at[b] and all(is_zero(p - q) for p, q in zip(r.points[a], r.points[b], strict=True)):
                return a, b
    return None
