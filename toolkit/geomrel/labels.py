"""Method A's relation labels: forced, impossible or witnessed, per question domain.

A label comes with its proof: forced relations are identities; "Cannot be inferred" carries
two exact witnesses whose recomputed relations differ. `None` means undecided (the generator
then draws another construction).
"""

from __future__ import annotations

import random

import sympy as sp

from toolkit.geomrel import exact as X


class Undecided(Exception):
    pass


def _status(r, expr, known, rng, extra) -> tuple[str, dict | None]:
    """'forced' | 'impossible' | 'possible' (with a witness) for predicate expr == 0."""
    if X.is_zero(expr):
        return "forced", None
    factors = X.residual_factors(expr, known)
    if not factors:
        return "impossible", None
    root = X.find_root(r, factors, rng, extra)
    if root is None:
        raise Undecided("no witness for a non-constant predicate")
    return "possible", root


def line_preds(P, a, b):
    u, v = X.sub(P[a[1]], P[a[0]]), X.sub(P[b[1]], P[b[0]])
    return X.cross(u, v), X.dot(u, v), X.cross(u, X.sub(P[b[0]], P[a[0]]))


def angle_parts(P, ang):
    u, v = X.sub(P[ang[0]], P[ang[1]]), X.sub(P[ang[2]], P[ang[1]])
    return X.dot(u, v), X.cross(u, v), X.dot(u, u) * X.dot(v, v)


def angle_preds(P, a, b):
    """(equal-or-supplementary, complementary) polynomial predicates and the sign carrier d1*d2."""
    d1, c1, n1 = angle_parts(P, a)
    d2, c2, n2 = angle_parts(P, b)
    return d1 * d1 * n2 - d2 * d2 * n1, (d1 * d2) ** 2 - (c1 * c2) ** 2, d1 * d2


def _relation_at(domain, P, question, values):
    """The relation of the question's elements at one exact assignment (witness recomputation)."""
    subs = lambda e: X.evaluate(e, values)  # noqa: E731
    a, b = question["a"], question["b"]
    if domain == "line":
        c, d, _ = (subs(e) for e in line_preds(P, a, b))
        return "parallel" if c == 0 else "perpendicular" if d == 0 else "intersecting"
    if domain == "angle":
        es, co, sign = (subs(e) for e in angle_preds(P, a, b))
        if es == 0:
            return "equal" if sign > 0 else "supplementary" if sign < 0 else "equal"
        # |cos1 cos2| = sin1 sin2 is a sum of 90 degrees only when both angles are acute (two obtuse ones sum to
        # 270, a right and a straight one to 270 as well)
        acute = all(subs(angle_parts(P, e)[0]) > 0 for e in (a, b))
        return "complementary" if co == 0 and acute else "none"
    inside = _inside_signs(P, question)
    vals = [subs(e) for e in inside]
    return "inside" if all(v > 0 for v in vals) else "outside" if any(v < 0 for v in vals) else "boundary"


def _inside_signs(P, question):
    poly = question["shape"]
    orient = X.cross(X.sub(P[poly[1]], P[poly[0]]), X.sub(P[poly[2]], P[poly[0]]))
    p = P[question["a"][0]]
    return [orient * X.cross(X.sub(P[poly[(i + 1) % len(poly)]], P[poly[i]]), X.sub(p, P[poly[i]]))
            for i in range(len(poly))]


def relation_at(r, question, values):
    return _relation_at(question["domain"], r.points, question, values)


def derive(r: X.Realization, question: dict, rng: random.Random) -> tuple[str, list[dict]]:
    """The proven relation and, for 'cannot', two witnesses with different relations."""
    domain, P = question["domain"], r.points
    known = X.known_nonzero_factors(r)
    extra = _element_nonzero(P, question)
    for e in extra:
        if X.is_zero(e):
            raise Undecided("a queried element is degenerate")
    if domain == "line":
        c, d, coline = line_preds(P, question["a"], question["b"])
        if X.is_zero(c) and X.is_zero(coline):
            raise Undecided("the two lines coincide")
        if set(question["a"]) & set(question["b"]):
            # two lines through a common point are never parallel: at a root of c they coincide
            if X.is_zero(c):
                raise Undecided("the two lines coincide")
            cs, cw = "impossible", None
        else:  # a parallel witness must keep the lines apart
            cs, cw = _status(r, c, known, rng, extra if X.is_zero(coline) else [*extra, coline])
        ds, dw = _status(r, d, known, rng, extra)
        if cs == "forced":
            return "parallel", []
        if ds == "forced":
            return "perpendicular", []
        witness = cw or dw
        if witness is None:
            return "intersecting", []
        return "cannot", _two_witnesses(r, question, witness, rng, extra)
    if domain == "angle":
        es, co, sign = angle_preds(P, question["a"], question["b"])
        if X.is_zero(sign):
            raise Undecided("a right angle makes equal and supplementary coincide")
        ess, esw = _status(r, es, known, rng, extra)
        cos_, cow = _status(r, co, known, rng, extra)
        if ess == "forced" or cos_ == "forced":
            rel = _forced_sign_relation(r, sign, known, es_forced=ess == "forced")
            return rel, []
        witness = esw or cow
        if witness is None:
            return "none", []
        return "cannot", _two_witnesses(r, question, witness, rng, extra)
    signs = _inside_signs(P, question)
    if any(X.is_zero(s) for s in signs):
        raise Undecided("the point lies on the boundary")
    definite = [_sign_definite(s, known) for s in signs]
    if all(d == 1 for d in definite):
        return "inside", []
    if any(d == -1 for d in definite):
        return "outside", []
    seen: dict[str, dict] = {}
    for _ in range(40):
        values = X.random_assignment(r, rng)
        if not X.admissible(r, values, extra):
            continue
        rel = relation_at(r, question, values)
        if rel != "boundary":
            seen.setdefault(rel, values)
        if len(seen) == 2:
            return "cannot", [X.witness_json(r, v, k) for k, v in sorted(seen.items())]
    raise Undecided("containment neither proven nor witnessed both ways")


def _forced_sign_relation(r, sign, known, es_forced: bool) -> str:
    s = _sign_definite(sign, known)
    if s is None:
        raise Undecided("angle sign not provable")
    if es_forced:
        return "equal" if s > 0 else "supplementary"
    if s < 0:
        raise Undecided("complementary form with obtuse pair")
    return "complementary"


def _sign_definite(expr, known) -> int | None:
    """+1/-1 when every factor of expr is a square, a known-signed constant or a positive-domain symbol."""
    num, den = sp.fraction(sp.together(sp.expand(expr)))
    sign = 1
    for part in (num, den):
        part = X.numerator(part)
        if part == 0:
            return None
        coeff, factors = sp.factor_list(part)
        sign *= 1 if coeff > 0 else -1
        for f, mult in factors:
            if mult % 2 == 0 and X._factor_key(f) in known:
                continue
            s = _positive_form(f)
            if s is None:
                return None
            sign *= s ** mult
    return sign


def _positive_form(f) -> int | None:
    """Sign of a factor that is 1+t^2 or the positive constant k3; else None."""
    f = sp.expand(f)
    if f == X.K3:
        return 1
    syms = list(f.free_symbols)
    if len(syms) == 1 and sp.expand(f - 1 - syms[0] ** 2) == 0:
        return 1
    return None


def _element_nonzero(P, question):
    if question["domain"] == "line":
        return [X.dot(X.sub(P[e[1]], P[e[0]]), X.sub(P[e[1]], P[e[0]])) for e in (question["a"], question["b"])]
    if question["domain"] == "angle":
        return [angle_parts(P, e)[2] for e in (question["a"], question["b"])]
    return []


def _two_witnesses(r, question, special: dict, rng, extra) -> list[dict]:
    rel_special = relation_at(r, question, special)
    for _ in range(40):
        values = X.random_assignment(r, rng)
        if X.admissible(r, values, extra):
            rel = relation_at(r, question, values)
            if rel != rel_special:
                return [X.witness_json(r, special, rel_special), X.witness_json(r, values, rel)]
    raise Undecided("no generic witness")
