"""Items drawn per target relation, for training data balanced over relations within each domain.

The plain generator asks about random elements, so forced relations are rare (a random pair of lines is seldom
forced perpendicular). Here the construction is drawn as usual; the question is then chosen among those whose
elements stand in the target relation at one random float realization (a forced relation holds there; an
accidental one almost never does), asked in the same form as the plain generator's (the first element through the
newest point). The exact solver then labels the item as always, and an item whose proven relation is not the
target is drawn again: every label is still proven, only the sampling changes. Targets with no float signature
(intersecting, none, cannot, and every containment relation) are met by plain draws and rejection.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random

import sympy as sp

from toolkit.core.errors import InputError
from toolkit.geomrel import dsl
from toolkit.geomrel import exact as X
from toolkit.geomrel.generate import LETTERS, MAX_OPS, build_program, generate_item, question_text, render
from toolkit.geomrel.labels import Undecided, derive

TOL = 1e-9
SIGNED = {"line": ("parallel", "perpendicular"), "angle": ("equal", "supplementary", "complementary")}


def _float_points(real: X.Realization, rng: random.Random) -> dict:
    values = {**{p.symbol: float(v) for p, v in zip(real.params, X.random_assignment(real, rng).values(),
                                                     strict=True)}, X.K3: math.sqrt(3) / 2}
    return {n: tuple(float(sp.sympify(c).xreplace(values)) for c in xy) for n, xy in real.points.items()}


def _angle(F, a):
    ux, uy = F[a[0]][0] - F[a[1]][0], F[a[0]][1] - F[a[1]][1]
    vx, vy = F[a[2]][0] - F[a[1]][0], F[a[2]][1] - F[a[1]][1]
    return math.atan2(abs(ux * vy - uy * vx), ux * vx + uy * vy)


def _line_rel(F, a, b):
    ux, uy = F[a[1]][0] - F[a[0]][0], F[a[1]][1] - F[a[0]][1]
    vx, vy = F[b[1]][0] - F[b[0]][0], F[b[1]][1] - F[b[0]][1]
    norm = math.hypot(ux, uy) * math.hypot(vx, vy)
    if norm < TOL:
        return None
    if abs(ux * vy - uy * vx) / norm < TOL:
        return "parallel"
    return "perpendicular" if abs(ux * vx + uy * vy) / norm < TOL else None


def _angle_rel(F, a, b):
    x, y = _angle(F, a), _angle(F, b)
    if min(x, y) < 1e-6 or max(x, y) > math.pi - 1e-6:
        return None
    if abs(x - y) < TOL:
        return "equal"
    if abs(x + y - math.pi) < TOL:
        return "supplementary"
    return "complementary" if abs(x + y - math.pi / 2) < TOL else None


def _candidates(domain: str, steps: list[dict], F: dict, target: str) -> list[dict]:
    relevant = [s for s in steps if not s.get("irrelevant")]
    points = [p for s in relevant for p in (s["pts"] if s["op"] in dsl.SHAPES else s["pts"][:1])]
    newest = points[-1]
    k = 2 if domain == "line" else 3
    elements = list(itertools.permutations(points, k))
    firsts = [e for e in elements if newest in e] if len(relevant) > 1 else elements
    found = []
    for a in firsts:
        for b in elements:
            if domain == "line" and (set(a) == set(b)):
                continue
            if domain == "angle" and (a == b or a == b[::-1]):
                continue
            rel = _line_rel(F, a, b) if domain == "line" else _angle_rel(F, a, b)
            if rel == target:
                found.append({"domain": domain, "a": list(a), "b": list(b)})
    return found


def targeted_item(rng: random.Random, level: str, domain: str, target: str, depth: int | None,
                  allowed: list[str], index: int, tries: int = 60) -> dict:
    """One item of `domain` whose proven relation is `target`."""
    signed = target in SIGNED.get(domain, ())
    for _ in range(tries):
        if not signed:
            item = generate_item(rng, level, domain, depth, allowed, index)
            if item["canonical"] == target:
                return {**item, "id": f"{item['id']}-{target}"}
            continue
        d = depth or rng.choice((2, 3) if level == "advanced" else (1,))
        steps = build_program(rng, d, allowed, distractor=level == "advanced")
        try:
            real = X.realize(steps)
            if X.coincident_pair(real, rng) is not None:
                continue
            if max(sp.count_ops(c) for xy in real.points.values() for c in xy) > MAX_OPS:
                continue
            found = _candidates(domain, steps, _float_points(real, rng), target)
            if not found:
                continue
            q = rng.choice(found)
            relation, witnesses = derive(real, q, rng)
        except (Undecided, ZeroDivisionError, OverflowError):
            continue
        if relation != target:
            continue
        body, options = render(steps, q, rng)
        text = question_text(body, options, spaced=rng.random() < 0.5)
        return {
            "id": f"tgt-{level}-{domain}-{target}-{index:05d}-{hashlib.sha1(text.encode()).hexdigest()[:8]}",
            "question": text, "options": options,
            "answer": LETTERS[options.index(dsl.option_text(domain, relation))],
            "relation": dsl.relation_code(domain, relation), "canonical": relation,
            "level": level, "domain": domain, "depth": d, "templates": [s["op"] for s in steps],
            "construction": {"steps": steps, "question": q}, "witnesses": witnesses, "source": "generated",
        }
    raise Undecided(f"no {level} {domain} item proven {target} in {tries} draws")


def generate_targeted(per_relation: dict, seed: int, level: str, depth: int | None = None,
                      exclude: list[str] = ()) -> list[dict]:
    """per_relation {"line:perpendicular": n, ...}: n items proven to stand in each relation; draws that find none
    are skipped (counted by the caller from the shortfall). The same arguments give the same items."""
    allowed = [t for t in dsl.TEMPLATES if t not in exclude]
    items = []
    for key, n in per_relation.items():
        domain, _, target = key.partition(":")
        if domain not in dsl.RELATIONS or target not in [r for r, _, _ in dsl.RELATIONS[domain]]:
            raise InputError(f"--per-relation: unknown relation {key!r}")
        for i in range(n):
            rng = random.Random(f"{seed}:{level}:{key}:{i}")
            try:
                items.append(targeted_item(rng, level, domain, target, depth, allowed, i))
            except Undecided:
                continue
    return items

