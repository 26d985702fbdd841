"""The "roles" input encoding of the relation classifier, read from an item's text alone.

Points are renamed by the part they play in the statement, not by their letters: the vertices of the first stated
shape become v0, v1, ... in the shape's role order (the right angle, the isosceles apex as the grammar reads them), a
second shape's w0, w1, ..., and each constructed point n0, n1, ... in the order the steps introduce them; a point the
parse does not place keeps p0, p1, ... by order of appearance. Before the renamed text come tags for the asked
elements, from the same parse: for a segment whether it is a side or a diagonal of its shape (or the line a step drew,
or a step's reference line), which construction gave each point, and what the two elements share. The tags name
roles; the relation itself is left to the model (nothing here calls the solver or reads a label).
"""

from __future__ import annotations

from toolkit.geomrel import grammar

SHAPE_PREFIXES = "vwu"
THROUGH = {"parallel", "perpendicular"}


def role_names(steps: list[dict]) -> dict[str, str]:
    """Point letter -> role name, from parsed construction steps."""
    names: dict[str, str] = {}
    shapes = derived = 0
    for step in steps:
        op, pts = step.get("op"), step.get("pts") or []
        if op == "ask" or str(op).startswith("given_"):
            continue
        if op in grammar.SHAPE_OPS.values():
            prefix = SHAPE_PREFIXES[min(shapes, len(SHAPE_PREFIXES) - 1)]
            for i, p in enumerate(pts):
                names.setdefault(p, f"{prefix}{i}")
            shapes += 1
        elif pts and pts[0] not in names:
            names[pts[0]] = f"n{derived}"
            derived += 1
    return names


def _origins(steps: list[dict]) -> dict[str, tuple[str, list[str], int]]:
    """Point -> (the op that introduced it, that step's points, the step's index)."""
    found: dict[str, tuple[str, list[str], int]] = {}
    for k, step in enumerate(steps):
        op, pts = step.get("op"), step.get("pts") or []
        if op == "ask" or str(op).startswith("given_"):
            continue
        for p in pts if op in grammar.SHAPE_OPS.values() else pts[:1]:
            found.setdefault(p, (op, pts, k))
    return found


def _segment_roles(seg: list[str], steps: list[dict], origins: dict) -> list[str]:
    """side / diagonal of a shape, the line step k drew (through a point, or to the foot), step k's reference line;
    other when none of these."""
    x, y = seg
    ox, oy = origins.get(x), origins.get(y)
    roles = []
    if ox and oy and ox[2] == oy[2] and ox[0] in grammar.SHAPE_OPS.values():
        pts = ox[1]
        gap = abs(pts.index(x) - pts.index(y))
        roles.append("side" if min(gap, len(pts) - gap) == 1 else "diagonal")
    for k, step in enumerate(steps):
        op, pts = step.get("op"), step.get("pts") or []
        if op in THROUGH | {"foot"} and {x, y} == set(pts[:2]):
            roles.append(f"drawn{k}")
        if op in THROUGH | {"foot"} and {x, y} == set(pts[2:4]):
            roles.append(f"ref{k}")
    return roles or ["other"]


def _origin_word(point: str, origins: dict) -> str:
    op = origins.get(point, ("unknown",))[0]
    return "vertex" if op in grammar.SHAPE_OPS.values() else op


def role_tags(steps: list[dict]) -> list[str]:
    """Tags for the asked elements of the question step (empty when no question was parsed)."""
    ask = next((s for s in steps if s.get("op") == "ask"), None)
    if ask is None:
        return []
    origins = _origins(steps)
    a, b = ask.get("a") or [], ask.get("b") or []
    tags = [f"q_{ask['domain']}"]
    if ask["domain"] == "line" and len(a) == len(b) == 2:
        for tag, seg in (("a", a), ("b", b)):
            tags += [*(f"{tag}_{r}" for r in _segment_roles(seg, steps, origins)),
                     *(f"{tag}_{_origin_word(p, origins)}" for p in seg)]
    elif ask["domain"] == "angle" and len(a) == len(b) == 3:
        for tag, ang in (("a", a), ("b", b)):
            arms = _segment_roles([ang[1], ang[0]], steps, origins) + _segment_roles([ang[1], ang[2]], steps, origins)
            tags += [f"{tag}_at_{_origin_word(ang[1], origins)}", *(f"{tag}_arm_{r}" for r in sorted(arms))]
        tags.append("same_vertex" if a[1] == b[1] else "other_vertex")
    elif ask["domain"] == "shape" and a:
        origin = origins.get(a[0])
        tags.append(f"a_{_origin_word(a[0], origins)}")
        if origin and origin[0] not in grammar.SHAPE_OPS.values():
            parents = origin[1][1:]
            shape = set(ask.get("shape") or ())
            tags.append("parents_vertices" if parents and set(parents) <= shape else "parents_other")
    tags.append(f"shared{len(set(a) & set(b))}")
    return tags


def role_words(question: str) -> list[str]:
    """The roles encoding: tags, a separator, then the question body with points renamed by role."""
    from toolkit.geomrel.classifier import body_of, canonical_words

    steps, _ = grammar.read(body_of(question))
    return [*role_tags(steps), "|", *canonical_words(question, role_names(steps))]
