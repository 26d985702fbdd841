"""Reading the GeomRel benchmark's own wording into figure facts (see figure.py for the fact forms).

The released files state premises in free English ("Triangle ABC, E and F are the midpoints of AC and BC
respectively", "Line AB is tangent to circle O at point C") and ask one of five questions: the relation of two lines,
whether three points are collinear (also "Is point E on the line AB?", "Are lines AB and AE the same line?"), the name
of an angle pair (vertical, supplementary, adjacent, diagonal, corresponding, alternate / consecutive interior or
exterior, complementary) or whether a segment lies inside a shape or plays a role in it ("Is AD the midline of triangle
ABC?", "... the altitude / the height / one side / one diagonal / a radius / a diameter of ..."). A body is split at
commas and periods (basic files have no space after a period: "AB=5.What"); a clause no pattern reads is split once
more at "with", "and", "such that", "where"; what still does not read is reported as unparsed.

Conventions the anchor's labels rely on, made explicit here: "line AB intersects line CD at E" puts E between A and B
and between C and D; named polygons are convex with vertices in order; an unqualified trapezoid ABCD has one pair of
opposite sides parallel (AB, CD when the text names no bases elsewhere it is either pair); "with E closer to C"
orders points on a line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

P, S, N = r"([A-Z])", r"([A-Z]{2})", r"([A-Z]{3,})"
SIZES = {"triangle": 3, "quadrilateral": 4, "rectangle": 4, "square": 4, "parallelogram": 4, "rhombus": 4,
         "trapezoid": 4, "kite": 4, "pentagon": 5, "hexagon": 6, "octagon": 8}
SHAPE = r"(triangle|quadrilateral|rectangle|square|parallelogram|rhombus|trapezoid|kite|pentagon|hexagon|octagon)"


class Unreadable(Exception):
    pass


@dataclass
class State:
    facts: list = field(default_factory=list)
    points: set = field(default_factory=set)
    shapes: dict = field(default_factory=dict)  # name -> kind (polygons by vertex order, circles by name)
    last: tuple | None = None  # (kind, name) of the shape the text spoke of last
    problems: list = field(default_factory=list)  # contradictions or ill-posed wording found while reading
    trapezoids: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    crossed: list = field(default_factory=list)  # lines other lines were said to cross (a transversal)
    lengths: list = field(default_factory=list)  # (segment, value) of stated lengths: only their ratios matter

    def add(self, *facts):
        for f in facts:
            self.facts.append(f)
            for part in f[1:]:
                if isinstance(part, str) and part.isupper():
                    self.points |= set(part)

    def polygon(self, kind: str, name: str):
        size = SIZES.get(kind.split()[-1], len(name))
        if len(name) != size:
            self.problems.append(f"{name} has {len(name)} vertices, not those of a {kind}")
        if len(set(name)) != len(name):
            self.problems.append(f"{name} repeats a vertex")
        self.shapes[name] = kind
        self.last = (kind, name)
        self.points |= set(name)
        if len(name) >= 3:
            self.add(("noncoll", name))
        if len(name) >= 4:
            self.add(("convex", name))

    def circle(self, name: str, center: str | None):
        key = "circle " + name
        if key not in self.shapes:
            self.shapes[key] = "circle"
            self.add(("circle", name, center))
        self.last = ("circle", name)

    def side(self, seg: str, word: str):
        """A 'side' of the shape spoken of must join consecutive vertices; a 'diagonal' must not."""
        if not self.last or self.last[0] == "circle":
            return
        name = self.last[1]
        if not set(seg) <= set(name):
            return
        i, j = name.index(seg[0]), name.index(seg[1])
        adjacent = (i - j) % len(name) in (1, len(name) - 1)
        if word == "side" and not adjacent:
            self.problems.append(f"{seg} is called a side of {name} but is a diagonal")
        if word == "diagonal" and adjacent:
            self.problems.append(f"{seg} is called a diagonal of {name} but is a side")


def shape_facts(st: State, kind: str, name: str, bases: tuple | None = None):
    kind = kind.lower().strip()
    st.polygon(kind, name)
    if len(name) < 3:
        return
    a, b, c = name[0], name[1], name[2]
    d = name[3] if len(name) > 3 else None
    if kind in ("right triangle",):
        st.add(("or", [("angle", x + y + z, 90) for x, y, z in (name[1] + name[0] + name[2], name[0] + name[1]
                                                                  + name[2], name[0] + name[2] + name[1])]))
    elif kind == "acute-angled triangle":
        st.add(*(("acute", x + y + z) for x, y, z in (b + a + c, a + b + c, a + c + b)))
    elif kind in ("isosceles triangle",):
        st.add(("or", [("eqlen", a + b, a + c), ("eqlen", b + a, b + c), ("eqlen", c + a, c + b)]))
    elif kind in ("equilateral triangle", "equiangular triangle"):
        st.add(("eqlen", a + b, b + c), ("eqlen", b + c, c + a))
    elif kind == "obtuse triangle":
        st.add(("or", [("angle", x + y + z, 120) for x, y, z in (b + a + c, a + b + c, a + c + b)]))
        st.notes.append("an obtuse triangle is drawn with one 120-degree angle")
    elif d and kind in ("parallelogram", "rectangle", "square", "rhombus"):
        st.add(("par", a + b, c + d), ("par", b + c, d + a))
        if kind in ("rectangle", "square"):
            st.add(("perp", a + b, b + c))
        if kind in ("square", "rhombus"):
            st.add(("eqlen", a + b, b + c))
    elif d and kind in ("trapezoid", "isosceles trapezoid"):
        if bases:
            st.add(("par", *bases))
        elif kind == "isosceles trapezoid":
            st.add(("par", a + b, c + d))
        else:
            st.trapezoids.append(name)
        if kind == "isosceles trapezoid":
            st.add(("eqlen", a + d, b + c), ("notpar", a + d, b + c))
    elif d and kind == "kite":
        st.add(("eqlen", a + b, a + d), ("eqlen", c + b, c + d))
    elif kind.startswith("regular") and len(name) >= 3:
        ring = name + name[:2]
        for i in range(len(name) - 1):
            st.add(("eqlen", ring[i:i + 2], ring[i + 1:i + 3]), ("angleeq", ring[i:i + 3], ring[i + 1:i + 4]))


def _letters(text: str) -> list[str]:
    return re.findall(r"\b[A-Z]\b", text)


# -------------------------------------------------------------------------------------------- clause patterns
def _polygon_clause(m, st):
    groups = {k: v for k, v in m.groupdict().items() if v}
    kind = (groups.get("adj", "") + " " + groups.get("kind", "quadrilateral")).strip().lower()
    shape_facts(st, kind, groups["name"])


def _named_is(m, st):
    name, what = m.group("name"), m.group("what").lower()
    what = re.sub(r"^(an?|another)\s+", "", what)
    if what in ("isosceles", "equilateral", "scalene", "equiangular"):
        what += " triangle"
    if what == "scalene triangle":
        st.polygon("triangle", name)
        st.add(("scalene", name))
        return
    if what.endswith("circle"):
        raise Unreadable(m.group(0))
    shape_facts(st, what, name)


def _right_at(m, st):
    name, v = m.group("name"), m.group("v")
    st.polygon("triangle", name)
    others = [x for x in name if x != v]
    if len(others) != 2:
        st.problems.append(f"{v} is not a vertex of {name}")
        return
    st.add(("angle", others[0] + v + others[1], 90))


def _midpoints(m, st):
    pts, segs = _letters(m.group("pts")), re.findall(r"[A-Z]{2}", m.group("segs"))
    if len(pts) != len(segs):
        raise Unreadable(m.group(0))
    for p, s in zip(pts, segs, strict=True):
        st.side(s, (m.group("word") or "").strip())
        st.add(("mid", p, s))


def _on_sides(m, st):
    pts, segs = _letters(m.group("pts")), re.findall(r"[A-Z]{2}", m.group("segs"))
    if len(pts) != len(segs):
        raise Unreadable(m.group(0))
    for p, s in zip(pts, segs, strict=True):
        st.side(s, "side")
        st.add(("coll", s + p), ("between", p, s))


def _on(m, st):
    p, s, word = m.group("p"), m.group("s"), (m.group("word") or "").strip()
    st.side(s, word)
    if word == "line":
        st.add(("coll", s + p))
    else:
        st.add(("coll", s + p), ("between", p, s))
    if m.group("notmid"):
        st.add(("noteqlen", s[0] + p, p + s[1]))


def _ratio(m, st):
    p, s, num, den, base = m.group("p"), m.group("s"), m.group("num"), m.group("den"), m.group("base")
    st.side(s, (m.group("word") or "").strip())
    first, second = m.group("first"), m.group("second")
    t = int(num) / int(den)
    ends = set(first + second) - {p}
    if len(ends) != 1 or set(base) != set(s) or (set(first + second) - set(s + p)):
        raise Unreadable(m.group(0))
    start = ends.pop()
    st.add(("ratio", p, start + (set(s) - {start}).pop(), t))


def _equal_halves(m, st):
    p, s = m.group("p"), m.group("s")
    st.side(s, (m.group("word") or "").strip())
    halves = {m.group("l1"), m.group("l2")}
    if {frozenset(h) for h in halves} != {frozenset(s[0] + p), frozenset(p + s[1])}:
        raise Unreadable(m.group(0))
    st.add(("mid", p, s))


def _extension(m, st):
    p, s, rest = m.group("p"), m.group("s"), m.group("rest")
    st.side(s, "side" if m.group("word") == "side" else "")
    eq = re.fullmatch(r"\s*([A-Z]{2}) = (?:(\d+)/(\d+) \* )?([A-Z]{2}|r)", rest or "")
    if not eq:
        raise Unreadable(m.group(0))
    near = set(eq.group(1)) - {p}
    if len(near) != 1 or p not in eq.group(1) or not near <= set(s):
        raise Unreadable(m.group(0))
    near = near.pop()
    far = (set(s) - {near}).pop()
    k = int(eq.group(2)) / int(eq.group(3)) if eq.group(2) else 1.0
    if eq.group(4) == "r":
        circle = st.last[1] if st.last and st.last[0] == "circle" else None
        if circle is None:
            raise Unreadable(m.group(0))
        st.add(("coll", far + near + p), ("beyond", p, far + near), ("radius", circle, near + p, k),
               ("on", circle, near))
    else:
        st.add(("coll", far + near + p), ("beyond", p, far + near), ("lenratio", near + p, eq.group(4), k))


def _intersection(m, st):
    p, segs = m.group("p"), re.findall(r"[A-Z]{2}", m.group("segs"))
    if p in (st.last[1] if st.last else ""):
        st.problems.append(f"{p} is already a vertex of {st.last[1]}")
    if len(segs) == 1 and st.last and len(st.last[1]) == 4:  # "the intersection of the diagonals AC"
        name = st.last[1]
        other = "".join(x for x in name if x not in segs[0])
        if len(other) == 2:
            segs.append(other)
    for s in segs:
        st.add(("coll", s + p), ("between", p, s))


def _lines_cross(m, st):
    a, b, p = m.group("a"), m.group("b"), m.group("p")
    st.crossed.append(b)
    st.add(("coll", a + p), ("coll", b + p), ("between", p, a), ("between", p, b), ("notpar", a, b))


def _lines_cross_loose(m, st):
    a, b, p = m.group("a"), m.group("b"), m.group("p")
    st.add(("coll", a + p), ("coll", b + p), ("notpar", a, b))


def _tangent(m, st):
    s, c, p = m.group("s"), m.group("c"), m.group("p")
    st.circle(c, c)
    st.add(("tangent", s, c, p))


def _altitude(m, st):
    seg, v, base = m.group("seg"), m.group("v"), m.group("base")
    if v not in seg:
        raise Unreadable(m.group(0))
    foot = (set(seg) - {v}).pop()
    if re.search(r"\bside [A-Z]{2}", m.group(0)):
        st.side(base, "side")
    st.add(("coll", base + foot), ("perp", seg, base))


def _perp(m, st):
    for a in re.findall(r"[A-Z]{2}", m.group("a")):
        st.add(("perp", a, m.group("b")))
        if m.group("at"):
            st.add(("coll", m.group("b") + m.group("at")), ("coll", a + m.group("at")))


def _par(m, st):
    for a in re.findall(r"[A-Z]{2}", m.group("a")):
        st.add(("par", a, m.group("b")))


def _both_par(m, st):
    st.add(("par", m.group("a"), m.group("b")))


def _eqlen(m, st):
    st.add(("eqlen", m.group("a"), m.group("b")))


def _length(m, st):
    seg = m.group("a")
    st.points |= set(seg)
    st.notes.append(f"length {seg}")
    st.lengths.append((seg, float(m.group("v"))))
    if len(st.lengths) > 1:
        (s0, v0) = st.lengths[0]
        st.add(("lenratio", seg, s0, float(m.group("v")) / v0))


def _angle_value(m, st):
    ang, word = m.group("ang"), m.group("what").lower()
    st.points |= set(ang)
    if "right" in word or "90" in word:
        st.add(("angle", ang, 90))
    elif "degrees" in word:
        st.add(("angle", ang, float(word.split()[0])))
    elif "straight" in word:
        st.add(("coll", ang), ("between", ang[1], ang[0] + ang[2]))
    elif "acute" in word:
        st.add(("acute", ang))
    elif "obtuse" in word:
        st.add(("obtuse", ang))


def _first_polygon_with(st, *vertices) -> str | None:
    """The first-named polygon that has all the vertices: "angle E" means the main figure's angle."""
    return next((n for n, kind in st.shapes.items() if kind != "circle" and not n.startswith("circle ")
                 and all(v in n for v in vertices)), None)


def _vertex_angle(m, st):
    """"angle A = 90 degrees": the angle at vertex A of the first-named polygon that has it."""
    name, v = _first_polygon_with(st, m.group("v")), m.group("v")
    if name is None:
        raise Unreadable(m.group(0))
    st.add(("angle", _polygon_vertex_angle(st, v, name), float(m.group("deg"))))


def _polygon_vertex_angle(st, v: str, name: str) -> str:
    i = name.index(v)
    return name[i - 1] + v + name[(i + 1) % len(name)]


def _vertex_angles_equal(m, st):
    """"angle A = angle E": two vertex angles of the first named polygon that has both vertices."""
    v, w = m.group("v"), m.group("w")
    name = _first_polygon_with(st, v, w)
    if name is None:
        raise Unreadable(m.group(0))
    st.add(("angleeq", _polygon_vertex_angle(st, v, name), _polygon_vertex_angle(st, w, name)))


def _radius_r(m, st):
    """"segment JG is equal in length to the radius r": r is the radius of the circle defined "with radius r"."""
    for f in st.facts:
        if f[0] == "on" and ("circle " + f[1]) in st.shapes:
            centre = next((g[2] for g in st.facts if g[0] == "circle" and g[1] == f[1]), None)
            if centre:
                st.add(("eqlen", m.group("s"), centre + f[2]))
                return
    raise Unreadable(m.group(0))


def _on_circle_with_center(m, st):
    st.circle(m.group("c"), m.group("center"))
    st.add(("on", m.group("c"), m.group("p")))


def _line_meets_circle_again(m, st):
    """"the line OA intersects circle O at another point B": B on the circle and on line OA (B is not A)."""
    c, p, seg = m.group("c"), m.group("p"), m.group("s")
    st.circle(c, c)
    st.add(("on", c, p), ("coll", seg + p))


def _segment_tangent(m, st):
    """"line segment AB is tangent to circle O": tangent at the endpoint that lies on the circle."""
    s, c = m.group("s"), m.group("c")
    touch = next((p for p in s if ("on", c, p) in st.facts), None)
    if touch is None:
        raise Unreadable(m.group(0))
    st.add(("tangent", s, c, touch))


def _bisects_angle(m, st):
    ang, s = m.group("ang"), m.group("s")
    if s[0] != ang[1]:
        st.problems.append(f"{s} bisects ∠{ang} but does not pass through its vertex {ang[1]}")
        return
    st.add(("angleeq", ang[0] + ang[1] + s[1], s[1] + ang[1] + ang[2]))


def _named_part(m, st):
    """"AC is one of its diagonals", "DH as one of its sides": checked against the shape spoken of last."""
    st.points |= set(m.group("s"))
    st.side(m.group("s"), "diagonal" if "diagonal" in m.group(0).lower() else "side")


def _triangle_center(m, st):
    name, what, p = m.group("name"), m.group("what"), m.group("p")
    st.polygon("triangle", name)
    _center(st, name, what, p)


def _center(st, name, what, p):
    a, b, c = name
    st.points.add(p)
    if what == "centroid":
        st.add(("centroid3", p, name))
    elif what == "incenter":
        st.add(("angleeq", b + a + p, p + a + c), ("angleeq", a + b + p, p + b + c), ("inside", p, name))
    elif what == "circumcenter":
        st.add(("eqlen", p + a, p + b), ("eqlen", p + b, p + c))


def _concyclic(m, st):
    pts = _letters(m.group("pts"))
    name = "cc" + "".join(pts)
    st.shapes["circle " + name] = "circle"
    st.add(("circle", name, "o" + "".join(pts)))
    st.points.add("o" + "".join(pts))
    for p in pts:
        st.add(("on", name, p))


def _circle_through(m, st):
    c = m.group("c")
    st.circle(c, c)
    for p in _letters(m.group("pts")):
        st.add(("on", c, p))


def _on_circle(m, st):
    c = m.group("c")
    st.circle(c, c)
    for p in _letters(m.group("pts")):
        st.add(("on", c, p))


def _diameter(m, st):
    s, c = m.group("s"), m.group("c") or (st.last[1] if st.last and st.last[0] == "circle" else None)
    if c is None:
        raise Unreadable(m.group(0))
    st.circle(c, c)
    st.add(("mid", c, s), ("on", c, s[0]), ("on", c, s[1]))


def _chord(m, st):
    s, c = m.group("s"), m.group("c")
    st.circle(c, c)
    st.add(("on", c, s[0]), ("on", c, s[1]))


def _circle_def(m, st):
    c, center = m.group("c"), m.group("center")
    if c != center:
        st.problems.append(f"circle {c} has center {center}")
    st.circle(c, center)


def _circle_cuts(m, st):
    center, s = m.group("center"), m.group("s")
    name = "c" + center
    st.circle(name, center)
    for p in _letters(m.group("pts")):
        st.add(("on", name, p), ("coll", s + p))


def _line_cuts_circle(m, st):
    s, c = m.group("s"), m.group("c")
    st.circle(c, c)
    for p in _letters(m.group("pts")):
        st.add(("on", c, p), ("coll", s + p))


def _point_on_tangent(m, st):
    c, p, s = m.group("c"), m.group("p"), m.group("s")
    st.circle(c, c)
    st.add(("tangent", s, c, p))


def _perp_bisector(m, st):
    a, b = m.group("a"), m.group("b")
    mid = "m" + b
    st.points.add(mid)
    st.add(("perp", a, b), ("mid", mid, b), ("coll", [a[0], a[1], mid]))


def _bisector(m, st, external=False):
    line, ang = m.group("s"), m.group("ang")
    v = ang[1]
    if v not in line:
        st.problems.append(f"the bisector {line} of ∠{ang} does not pass through its vertex {v}")
        st.add(("coll", line + v))
    other = (set(line) - {v}).pop() if v in line else line[0]
    st.add(("angleeq", ang[0] + v + other, other + v + ang[2]) if not external
           else ("anglesum", ang[0] + v + other, other + v + ang[2], 180.0))
    st.add(("noncoll", ang))


def _median_or_altitude(m, st):
    line, what, name = m.group("s"), m.group("what"), m.group("name")
    st.polygon("triangle", name)
    v = next((x for x in line if x in name), None)
    if v is None:
        raise Unreadable(m.group(0))
    foot = (set(line) - {v}).pop()
    base = "".join(x for x in name if x != v)
    st.add(("coll", base + foot), ("between", foot, base))
    if what == "altitude":
        st.add(("perp", line, base))
    else:
        st.add(("mid", foot, base))


def _side_line_cut(m, st):
    line, s, kind, name, how = m.group("l"), m.group("s"), m.group("kind"), m.group("name"), m.group("how")
    shape_facts(st, kind, name)
    st.side(s, "side")
    st.add(("notpar", line, s))
    if "obtuse" in how or "acute" in how:
        st.add(("notperp", line, s))


def _altitude_on_side(m, st):
    line, s, kind, name = m.group("l"), m.group("s"), m.group("kind"), m.group("name")
    shape_facts(st, kind, name)
    st.side(s, "side")
    st.add(("perp", line, s))
    if kind == "trapezoid" and name in st.trapezoids:
        st.trapezoids.remove(name)
        st.add(("par", name[0:2], name[2:4]) if s in (name[0:2], name[2:4]) else ("par", name[1:3], name[3] +
                                                                                 name[0]))


def _two_altitudes(m, st):
    a, b, s = m.group("a"), m.group("b"), m.group("s")
    st.side(s, "side")
    st.add(("perp", a, s), ("perp", b, s), ("notcoin", a, b))


def _diagonals_named(m, st):
    a, b = m.group("a"), m.group("b")
    if st.last:
        for s in (a, b):
            st.side(s, "diagonal")
        name = st.last[1]
        if st.last[0] == "kite" and len(name) == 4:  # the symmetry axis is the diagonal through its apexes
            pass


def _bases(m, st):
    a, b = m.group("a"), m.group("b")
    if st.last and st.last[1] in st.trapezoids:
        st.trapezoids.remove(st.last[1])
    st.add(("par", a, b))


def _not_kinds(m, st):
    if not st.last:
        raise Unreadable(m.group(0))
    name = st.last[1]
    words = m.group("kinds")
    if "rectangle" in words:
        st.add(("notperp", name[0:2], name[1:3]))
    if "rhombus" in words:
        st.add(("noteqlen", name[0:2], name[1:3]))


def _legs_not_perp(m, st):
    name = st.last[1]
    if name in st.trapezoids:
        st.trapezoids.remove(name)
        st.add(("par", name[0:2], name[2:4]))
    for leg in (name[1:3], name[3] + name[0]):
        st.add(("notperp", leg, name[0:2]))


def _no_right(m, st):
    name = st.last[1]
    for i in range(3):
        st.add(("notright", name[i - 1] + name[i] + name[(i + 1) % 3]))


def _hypotenuse(m, st):
    s = m.group("s")
    name = st.last[1] if st.last else ""
    v = "".join(x for x in name if x not in s)
    if len(v) != 1:
        raise Unreadable(m.group(0))
    st.add(("angle", s[0] + v + s[1], 90))


def _diag_bisects(m, st):
    for diag, v in ((m.group("d1"), m.group("v1")), (m.group("d2"), m.group("v2"))):
        name = st.last[1]
        if v not in diag or v not in name:
            raise Unreadable(m.group(0))
        i = name.index(v)
        prev, nxt = name[i - 1], name[(i + 1) % len(name)]
        other = (set(diag) - {v}).pop()
        st.add(("angleeq", prev + v + other, other + v + nxt))


def _transversal(m, st):
    """Line AB meets line CD at E, line GH meets line CD at F, E closer to C and F to D, GH ∥ AB, A and G on one
    side of CD (the anchor's advanced angle figure)."""
    st.add(("order", m.group("p1"), m.group("c1"), m.group("p2"), m.group("c2")))


def _closer(m, st):
    p1, c1, p2, c2 = m.group("p1"), m.group("c1"), m.group("p2"), m.group("c2")
    st.add(("between", p1, c1 + p2), ("between", p2, p1 + c2))


def _same_side(m, st):
    if not st.crossed:
        raise Unreadable(m.group(0))
    st.add(("sameside", m.group("a"), m.group("b"), max(set(st.crossed), key=st.crossed.count)))


def _supplementary(m, st):
    st.add(("anglesum", m.group("a"), m.group("b"), 180.0))


def _collinear_not(m, st):
    pts = "".join(_letters(m.group("pts")))
    st.problems.append(f"points {', '.join(pts)} are said to be collinear and not on one line")


def _parallelograms_both(m, st):
    for name in (m.group("a"), m.group("b")):
        shape_facts(st, "parallelogram", name)


def _triangle_with_sides_equal(m, st):
    shape_facts(st, "triangle", m.group("name"))
    st.add(("eqlen", m.group("a"), m.group("b")))


def _noop(m, st):
    for x in _letters(m.group(0)) + re.findall(r"[A-Z]{2,}", m.group(0)):
        st.points |= set(x)


def _point_inside(m, st):
    st.add(("inside", m.group("p"), m.group("name")))


def _free(m, st):
    st.points |= set(_letters(m.group(0)))


def _midpoint_clause(m, st):
    if m.group("kind"):
        shape_facts(st, m.group("kind"), m.group("name"))
    _midpoints(m, st)


def _tangent_point(m, st):
    c = m.group("c") or (st.last[1] if st.last and st.last[0] == "circle" else None)
    if c is None:
        raise Unreadable(m.group(0))
    st.circle(c, c)
    st.add(("tangent", m.group("s"), c, m.group("p")))
    if m.group("x"):
        st.add(("beyond", m.group("p"), m.group("x")[::-1]))
    if m.group("y"):
        st.add(("between", m.group("p"), m.group("y")))


def _circle_meets_again(m, st):
    c, r, s, p = m.group("c"), m.group("r"), m.group("s"), m.group("p")
    if set(r) != set(s) or c not in r:
        raise Unreadable(m.group(0))
    st.add(("mid", c, (set(r) - {c}).pop() + p))


def _inscribed(m, st):
    shape_facts(st, "triangle", m.group("name"))
    st.circle(m.group("c"), m.group("c"))
    for p in m.group("name"):
        st.add(("on", m.group("c"), p))


def _on_named_circle(m, st):
    c = m.group("c") or (st.last[1] if st.last and st.last[0] == "circle" else None)
    if c is None:
        raise Unreadable(m.group(0))
    st.circle(c, c)
    for p in _letters(m.group("pts")):
        st.add(("on", c, p))


def _on_diameter_circle(m, st):
    p, s = m.group("p"), m.group("s")
    name, center = "d" + s, "o" + s
    st.points.add(center)
    st.shapes["circle " + name] = "circle"
    st.add(("circle", name, center), ("mid", center, s), ("on", name, s[0]), ("on", name, s[1]), ("on", name, p))


CLAUSES = [
    (rf"(?:if |in |for )?(?:a |an |the )?(?P<adj>right|isosceles|regular|equilateral|acute-angled)? ?"
     rf"(?P<kind>{SHAPE[1:-1]}) "
     rf"(?P<name>[A-Z]{{3,}})", _polygon_clause),
    (rf"(?:if |in |for )?(?:the )?(?:triangle |quadrilateral )?(?P<name>[A-Z]{{3,}}) is (?:also )?"
     rf"(?P<what>(?:an? |another )?(?:(?:right|isosceles|equilateral|regular|scalene|equiangular) )?"
     rf"(?:{SHAPE[1:-1]}|isosceles|equilateral|scalene))", _named_is),
    (rf"(?:triangle )?(?P<name>[A-Z]{{3}}) is right-angled at {P.replace('(', '(?P<v>')}", _right_at),
    (r"(?:triangle )?(?P<name>[A-Z]{3}) is right-angled with ∠(?P<v>[A-Z]) = 90°", _right_at),
    (r"(?:point )?(?P<pts>[A-Z](?: and [A-Z])?) (?:is|are) the midpoints? of (?:the )?"
     r"(?P<word>side |diagonal |segment )?(?P<segs>[A-Z]{2}(?: and [A-Z]{2})?)(?: respectively)?"
     r"(?: in (?P<kind>parallelogram|triangle|rectangle|square) (?P<name>[A-Z]{3,}))?", _midpoint_clause),
    (r"(?P<pts>[A-Z] and [A-Z]) are points on sides (?P<segs>[A-Z]{2} and [A-Z]{2}) respectively", _on_sides),
    (r"(?:point )?(?P<p>[A-Z]) (?:is (?:a |any )?point on|is on|lies on) (?:the )?(?:line (?=segment ))?"
     r"(?P<word>side |segment |line )?"
     r"(?P<s>[A-Z]{2})(?P<notmid> but not the midpoint of [A-Z]{2})?", _on),
    (r"(?:point )?(?P<p>[A-Z]) (?:is (?:a )?point on|lies on) (?P<word>side |diagonal )?(?P<s>[A-Z]{2}) such that "
     r"(?P<first>[A-Z])(?P<second>[A-Z]) = (?P<num>\d+)/(?P<den>\d+) \* (?P<base>[A-Z]{2})", _ratio),
    (r"(?:point )?(?P<p>[A-Z]) (?:is (?:a )?point on|lies on) (?P<word>side |diagonal )?(?P<s>[A-Z]{2}) such that "
     r"(?P<l1>[A-Z]{2}) = (?P<l2>[A-Z]{2})", _equal_halves),
    (r"point (?P<p>[A-Z]) is on the extension line of (?P<word>side|the radius) (?P<s>[A-Z]{2}), ?(?P<rest>.*)",
     _extension),
    (r"(?:point )?(?P<p>[A-Z]) is the intersection of (?:the )?(?:diagonals )?(?P<segs>[A-Z]{2}(?: and [A-Z]{2})?)",
     _intersection),
    (r"(?:in a plane, )?lines? (?P<a>[A-Z]{2}) intersects line (?P<b>[A-Z]{2}) at point (?P<p>[A-Z])",
     _lines_cross),
    (r"(?:line )?(?P<s>[A-Z]{2}) is tangent to circle (?P<c>[A-Z]) at point (?P<p>[A-Z])", _tangent),
    (r"(?:in circle (?P<c>[A-Z]), )?point (?P<p>[A-Z]) is a point on the circle where (?P<s>[A-Z]{2}) is a tangent,? "
     r"and [A-Z] is the point of tangency(?: which is on the extension of (?P<x>[A-Z]{2}) in the opposite "
     r"direction| which lies on the segment (?P<y>[A-Z]{2}))?", _tangent_point),
    (r"(?:(?:in|for) triangle [A-Z]{3}, |triangle [A-Z]{3}, |with )?(?:let )?(?P<seg>[A-Z]{2}) (?:is |being |be |as )?"
     r"the (?:altitude|perpendicular) (?:drawn )?from vertex (?P<v>[A-Z]) to (?:the base |side )?(?P<base>[A-Z]{2})"
     r"(?:, with [A-Z] as the foot of the perpendicular|,? and point [A-Z] is the foot of this altitude)?", _altitude),
    (r"(?:in a plane, )?lines? (?P<a>[A-Z]{2}(?: and [A-Z]{2})?) (?:is|are both) perpendicular to (?:line )?"
     r"(?P<b>[A-Z]{2})(?: at point (?P<at>[A-Z]))?", _perp),
    (r"(?:segment |side |line )?(?P<a>[A-Z]{2}) (?:is parallel to|parallel to|\|\||∥) (?:segment |side |line )?"
     r"(?P<b>[A-Z]{2})", _par),
    (r"the vectors (?P<a>[A-Z]{2}) and (?P<b>[A-Z]{2}) \(do not coincide\) are proportional", _both_par),
    (r"the non-coincident lines (?P<a>[A-Z]{2}) and (?P<b>[A-Z]{2}) in the coordinate system have equal slopes",
     _both_par),
    (r"the non-coincident lines [A-Z]{2} and [A-Z]{2} in the coordinate system have positive slopes", _noop),
    (r"line (?P<a>[A-Z]{2}) and line (?P<b>[A-Z]{2}) lie in the same plane and are non-intersecting", _both_par),
    (r"line [A-Z]{2} and line [A-Z]{2} lie in the same plane", _noop),
    (r"lines [A-Z]{2} and [A-Z]{2} both intersect with line [A-Z]{2}", _noop),
    (r"(?P<a>[A-Z]{2}) ?= ?(?P<b>[A-Z]{2})", _eqlen),
    (r"(?P<s>[A-Z]{2}) (?:is one of its diagonals|is the other diagonal|as one of its sides)", _named_part),
    (r"angle (?P<v>[A-Z]) = (?P<deg>\d+) degrees", _vertex_angle),
    (r"angle (?P<ang>[A-Z]{3}) = (?P<what>\d+ degrees)", _angle_value),
    (r"angle (?P<v>[A-Z]) = angle (?P<w>[A-Z])", _vertex_angles_equal),
    (r"(?:line )?segment (?P<s>[A-Z]{2}) is equal in length to the radius r", _radius_r),
    (r"(?:line segment )?(?P<a>[A-Z]{2}) ?= ?(?P<v>\d+(?:\.\d+)?)", _length),
    (r"(?:the measure of |the )?(?:angle |∠)(?P<ang>[A-Z]{3}) is (?:equal to )?(?P<what>a right angle|acute|"
     r"an acute angle|an obtuse angle|"
     r"a straight angle|\d+ degrees)", _angle_value),
    (r"angle (?P<a>[A-Z]{3}) is equal to angle (?P<b>[A-Z]{3})", lambda m, st: st.add(("angleeq", m.group("a"),
                                                                                      m.group("b")))),
    (r"(?:point )?(?P<p>[A-Z]) is (?:a )?on straight line (?P<s>[A-Z]{2})",
     lambda m, st: st.add(("coll", m.group("s") + m.group("p")))),
    (r"point (?P<a>[A-Z]) and point (?P<b>[A-Z]) are exactly symmetrical with respect to point (?P<p>[A-Z])",
     lambda m, st: st.add(("mid", m.group("p"), m.group("a") + m.group("b")))),
    (r"(?:point )?(?P<p>[A-Z]) (?:is on|lies on) the extension of (?P<s>[A-Z]{2}) in the opposite direction",
     lambda m, st: st.add(("coll", m.group("s") + m.group("p")), ("beyond", m.group("p"), m.group("s")[::-1]))),
    (r"the length of side (?P<a>[A-Z]{2}) is equal to the length of side (?P<b>[A-Z]{2})", _eqlen),
    (r"(?:the )?(?:line segment |segment )?(?P<a>[A-Z]{2}) is equal in length to (?:the )?(?:line segment |segment )?"
     r"(?P<b>[A-Z]{2})", _eqlen),
    (r"the area of triangle [A-Z]{3} is equal to the area of triangle [A-Z]{3}", _noop),
    (r"(?:the )?circle [A-Z] has a radius of \d+(?: units)?", _noop),
    (r"the length of side [A-Z]{2} is equal to the radius of circle [A-Z]", _noop),
    (r"(?:the )?(?:line segment |segment |line |diagonal )?(?P<a>[A-Z]{2}) is perpendicular to (?:line segment |"
     r"segment |line |diagonal |side )?"
     r"(?P<b>[A-Z]{2})", lambda m, st: st.add(("perp", m.group("a"), m.group("b")))),
    (r"a circle with center (?P<c>[A-Z]) and radius (?P<r>[A-Z]{2}) intersects the line (?P<s>[A-Z]{2}) at another "
     r"point (?P<p>[A-Z])", _circle_meets_again),
    (r"the radius of circle [A-Z] is \d+(?: units)?", _noop),
    (r"triangle [A-Z]{3} is congruent to triangle [A-Z]{3}", _noop),
    (r"∠[A-Z]{3} is a straight angle, maybe a straight angle", _free),
    (r"(?:triangle )?(?P<name>[A-Z]{3}) with (?P<what>incenter|centroid|circumcenter) at point (?P<p>[A-Z])",
     _triangle_center),
    (r"points (?P<pts>[A-Z], [A-Z], [A-Z],? and [A-Z]) are concyclic(?: and form a cyclic quadrilateral)?",
     _concyclic),
    (r"(?:triangle )?(?P<name>[A-Z]{3}) is inscribed in circle (?P<c>[A-Z])", _inscribed),
    (r"circle (?P<c>[A-Z]) passes through points (?P<pts>[A-Z], [A-Z],? and [A-Z])", _circle_through),
    (r"(?:points? )?(?P<pts>[A-Z](?: and [A-Z])?) (?:is a point|are any two distinct points|are two points|"
     r"is any point|lies) on (?:circle "
     r"(?P<c>[A-Z])|the circumference of the circle|the circle)", _on_named_circle),
    (r"(?:the )?line segment (?P<s>[A-Z]{2}) is the diameter of circle (?P<c>[A-Z])", _diameter),
    (r"(?:line )?(?P<s>[A-Z]{2}) is a diameter of (?:circle (?P<c>[A-Z])|the circle)", _diameter),
    (r"point (?P<p>[A-Z]) is a point on circle (?P<c>[A-Z]) \(with center (?P<center>[A-Z])\)", _on_circle_with_center),
    (r"point (?P<p>[A-Z]) is a point on the extension of (?P<s>[A-Z]{2})",
     lambda m, st: st.add(("coll", m.group("s") + m.group("p")), ("beyond", m.group("p"), m.group("s")))),
    (r"the line (?P<s>[A-Z]{2}) intersects circle (?P<c>[A-Z]) at another point (?P<p>[A-Z])",
     _line_meets_circle_again),
    (r"(?:the )?line (?P<s>[A-Z]{2}) passes exactly through the center (?P<c>[A-Z])",
     lambda m, st: st.add(("coll", m.group("s") + m.group("c")))),
    (r"(?:the )?line (?P<s>[A-Z]{2}) does not pass through the center (?P<c>[A-Z])",
     lambda m, st: st.add(("noncoll", m.group("s") + m.group("c")))),
    (r"line segment (?P<s>[A-Z]{2}) is tangent to circle (?P<c>[A-Z])", _segment_tangent),
    (r"(?:the )?line (?P<s>[A-Z]{2}) bisects angle (?P<ang>[A-Z]{3})", _bisects_angle),
    (r"(?:the )?diagonals (?P<a>[A-Z]{2}) and (?P<b>[A-Z]{2}) are perpendicular(?: to each other)?",
     lambda m, st: st.add(("perp", m.group("a"), m.group("b")))),
    (r"(?:the )?diagonals (?P<a>[A-Z]{2}) and (?P<b>[A-Z]{2}) intersect at point (?P<p>[A-Z])",
     lambda m, st: st.add(("coll", m.group("a") + m.group("p")), ("coll", m.group("b") + m.group("p")))),
    (r"angle (?P<v>[A-Z]) is (?:congruent|equal) to angle (?P<w>[A-Z])", _vertex_angles_equal),
    (r"(?:the angle at vertex|the measure of angle) (?P<v>[A-Z]) is (?P<deg>\d+) degrees", _vertex_angle),
    (r"(?:segment )?(?P<a>[A-Z]{2}) is equal to (?:segment )?(?P<b>[A-Z]{2})", _eqlen),
    (r"segment [A-Z]{2} is equal to \d+ units|the length of side [A-Z]{2} is \d+ units", _noop),
    (r"point (?P<p>[A-Z]) is the intersection of line (?P<s>[A-Z]{2}) and the diameter of circle (?P<c>[A-Z]) "
     r"passing through point (?P<q>[A-Z])",
     lambda m, st: st.add(("coll", m.group("s") + m.group("p")), ("coll", m.group("c") + m.group("q") + m.group("p")))),
    (r"the circle [A-Z] is inscribed in the (?:hexagon|pentagon|octagon|quadrilateral|triangle) [A-Z]+", _noop),
    (r"(?:point )?(?P<pts>[A-Z]) lies on the circumference of circle (?P<c>[A-Z])", _on_named_circle),
    (r"line segment (?P<s>[A-Z]{2}) is a chord of circle (?P<c>[A-Z])", _chord),
    (r"(?P<c>[A-Z]) is a circle with center (?P<center>[A-Z]) and radius r", _circle_def),
    (r"(?:a|[A-Z]) circle with center (?P<center>[A-Z]) intersects (?P<s>[A-Z]{2}) at points (?P<pts>[A-Z] and [A-Z])",
     _circle_cuts),
    (r"line (?P<s>[A-Z]{2}) intersects circle (?P<c>[A-Z]) at two points, (?P<pts>point [A-Z] and point [A-Z])",
     _line_cuts_circle),
    (r"line (?P<a>[A-Z]{2}) is the perpendicular bisector of (?:segment )?(?P<b>[A-Z]{2})", _perp_bisector),
    (r"line (?P<s>[A-Z]{2}) is the angle bisector of ∠(?P<ang>[A-Z]{3})", _bisector),
    (r"line (?P<s>[A-Z]{2}) is the external bisector of ∠(?P<ang>[A-Z]{3})",
     lambda m, st: _bisector(m, st, external=True)),
    (r"line (?P<s>[A-Z]{2}) is the (?P<what>altitude|median) of triangle (?P<name>[A-Z]{3})", _median_or_altitude),
    (rf"line (?P<l>[A-Z]{{2}}) intersects side (?P<s>[A-Z]{{2}}) of (?P<kind>{SHAPE[1:-1]}) (?P<name>[A-Z]{{3,}}) at "
     r"(?P<how>an acute angle|an acute|an obtuse angle)", _side_line_cut),
    (rf"line (?P<l>[A-Z]{{2}}) is the altitude on side (?P<s>[A-Z]{{2}}) of (?P<kind>{SHAPE[1:-1]}) "
     r"(?P<name>[A-Z]{3,})", _altitude_on_side),
    (r"(?P<a>[A-Z]{2}) and (?P<b>[A-Z]{2}) are two non-overlapping altitudes on side (?P<s>[A-Z]{2})",
     _two_altitudes),
    (r"(?P<a>[A-Z]{2}) and (?P<b>[A-Z]{2}) as its two diagonals", _diagonals_named),
    (r"(?P<a>[A-Z]{2}) and (?P<b>[A-Z]{2}) are respectively the top base and bottom base", _bases),
    (r"but not a (?P<kinds>rectangle or rhombus)", _not_kinds),
    (r"non-parallel sides not perpendicular to bases", _legs_not_perp),
    (r"no right angles", _no_right),
    (r"(?P<s>[A-Z]{2}) is the hypotenuse", _hypotenuse),
    (r"diagonal (?P<d1>[A-Z]{2}) bisecting angle (?P<v1>[A-Z]) and diagonal (?P<d2>[A-Z]{2}) bisecting angle "
     r"(?P<v2>[A-Z])", _diag_bisects),
    (r"(?P<p1>[A-Z]) closer to (?P<c1>[A-Z]) and (?P<p2>[A-Z]) closer to (?P<c2>[A-Z])", _closer),
    (r"points (?P<a>[A-Z]) and (?P<b>[A-Z]) lie on the same side of the lines", _same_side),
    (r"angle (?P<a>[A-Z]{3}) is supplementary to angle (?P<b>[A-Z]{3})", _supplementary),
    (r"points (?P<pts>[A-Z], [A-Z],? and [A-Z]) are collinear but not on the same line", _collinear_not),
    (r"points (?P<pts>[A-Z], [A-Z], [A-Z],? and [A-Z]) are coplanar but not collinear", _noop),
    (r"points (?P<pts>[A-Z], [A-Z],? and [A-Z]) form an? (?P<kind>obtuse|equiangular) triangle",
     lambda m, st: shape_facts(st, m.group("kind") + " triangle", "".join(_letters(m.group("pts"))))),
    (r"points (?P<pts>[A-Z], [A-Z], [A-Z],? and [A-Z]) are vertices of a (?P<kind>regular polygon|convex "
     r"quadrilateral)", lambda m, st: shape_facts(st, "regular polygon" if "regular" in m.group("kind") else
                                                  "quadrilateral", "".join(_letters(m.group("pts"))))),
    (r"quadrilateral (?P<a>[A-Z]{4}) and quadrilateral (?P<b>[A-Z]{4}) are both parallelograms",
     _parallelograms_both),
    (r"(?:quadrilateral )?(?P<name>[A-Z]{4}) with diagonals intersecting at point (?P<p>[A-Z])",
     lambda m, st: (shape_facts(st, "quadrilateral", m.group("name")),
                    _intersection(re.match(r"(?P<p>[A-Z]) (?P<segs>.*)", m.group("p") + " " + m.group("name")[0]
                                           + m.group("name")[2] + " and " + m.group("name")[1]
                                           + m.group("name")[3]), st))),
    (r"(?:(?:in )?a plane, there is a )?quadrilateral (?P<name>[A-Z]{4})", _polygon_clause),
    (r"(?:point )?[A-Z] is (?:a|another) point in the plane", _free),
    (r"finding three points in the plane: point [A-Z], point [A-Z], and point [A-Z]", _free),
    (r"(?P<p>[A-Z]) is a point inside (?P<name>[A-Z]{3,})", _point_inside),
    (r"(?P<p>[A-Z]) is the centroid of the triangle", lambda m, st: _center(st, st.last[1], "centroid",
                                                                           m.group("p"))),
    (r"(?:connect|joining) [A-Z]{2}", _noop),
    (r"in a plane", _noop),
    (r"(?:point )?(?P<p>[A-Z]) lies on the extension of (?P<s>[A-Z]{2}) beyond (?P<e>[A-Z])",
     lambda m, st: st.add(("coll", m.group("s") + m.group("p")),
                          ("beyond", m.group("p"), m.group("s") if m.group("e") == m.group("s")[1]
                           else m.group("s")[::-1]))),
    (r"(?P<h>[A-Z]) is the foot of the perpendicular from (?P<p>[A-Z]) to (?:line|side) (?P<s>[A-Z]{2})",
     lambda m, st: st.add(("coll", m.group("s") + m.group("h")), ("perp", m.group("p") + m.group("h"), m.group("s")))),
    (r"(?P<r>[A-Z]) is the reflection of (?P<p>[A-Z]) about point (?P<q>[A-Z])",
     lambda m, st: st.add(("mid", m.group("q"), m.group("p") + m.group("r")))),
    (r"line (?P<l>[A-Z]{2}) is drawn through (?P<p>[A-Z]) (?P<how>parallel|perpendicular) to (?P<s>[A-Z]{2})",
     lambda m, st: st.add(("par" if m.group("how") == "parallel" else "perp", m.group("l"), m.group("s")))),
    (r"(?P<p>[A-Z]) is a point on the circle with diameter (?P<s>[A-Z]{2})", _on_diameter_circle),
    (r"the lines (?P<a>[A-Z]{2}) and (?P<b>[A-Z]{2}) are not parallel", lambda m, st: st.add(("notpar", m.group("a"),
                                                                                             m.group("b")))),
    (r"angle (?P<ang>[A-Z]{3}) is not a right angle", lambda m, st: st.add(("notright", m.group("ang")))),
    (r"line (?P<a>[A-Z]{2}) intersects (?:line |side )?(?P<b>[A-Z]{2}) at point (?P<p>[A-Z])", _lines_cross_loose),
]


COMPILED = [(re.compile(pat, re.IGNORECASE), fn) for pat, fn in CLAUSES]
SPLITS = (", and ", " and ", ", with ", " with ", ", ", " such that ", " where ", " (where ", ")")


def _copy(st: State) -> State:
    return State(**{k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else set(v)
                        if isinstance(v, set) else v) for k, v in vars(st).items()})


def read_clause(text: str, st: State) -> list[str]:
    """Facts from one clause into st; returns the parts no pattern read."""
    text = text.strip().strip(",").strip()
    text = re.sub(r"^(and|with|if|where|for|then|also|additionally,?)\s+", "", text, flags=re.IGNORECASE).strip()
    if not text:
        return []
    for pattern, fn in COMPILED:
        m = pattern.fullmatch(text)
        if m:
            trial = _copy(st)
            try:
                fn(m, trial)
            except (Unreadable, AttributeError, TypeError, IndexError, KeyError, ValueError):
                continue  # a pattern whose wording matched but whose content does not fit (no shape to refer to)
            vars(st).update(vars(trial))
            return []
    for sep in SPLITS:
        for i in [k for k in range(1, len(text)) if text.startswith(sep, k)]:
            trial = _copy(st)
            if read_clause(text[:i], trial) or read_clause(text[i + len(sep):], trial):
                continue
            vars(st).update(vars(trial))
            return []
    return [text]


QUESTIONS = [
    (r"what is the relationship between line (?P<a>[A-Z]{2}) and line (?P<b>[A-Z]{2})", "line"),
    (r"are points (?P<p>[A-Z]), (?P<q>[A-Z]),? and (?P<r>[A-Z]) collinear", "coll"),
    (r"do points (?P<p>[A-Z]), (?P<q>[A-Z]),? and (?P<r>[A-Z]) lie on the same line", "coll"),
    (r"is point (?P<r>[A-Z]) on the line (?P<p>[A-Z])(?P<q>[A-Z])", "coll"),
    (r"are lines (?P<a>[A-Z]{2}) and (?P<b>[A-Z]{2}) the same line", "sameline"),
    (r"what is the relationship between ∠(?P<a>[A-Z]{3}) and ∠(?P<b>[A-Z]{3})", "angle"),
    (r"is line segment (?P<s>[A-Z]{2}) inside (?P<shape>[a-z]+) (?P<name>[A-Z]+)", "segment"),
    (r"is point (?P<s>[A-Z]) inside (?P<shape>[a-z]+) (?P<name>[A-Z]+)", "point"),
    (r"what is the relationship between point (?P<s>[A-Z]) and (?P<shape>[a-z]+) (?P<name>[A-Z]+)", "point"),
    (r"is (?P<s>[A-Z]{2}) (?:the|a|an|one) (?P<role>midline|angle bisector|altitude|height|diagonal|side|radius|"
     r"diameter) of (?P<shape>triangle|quadrilateral|parallelogram|circle) (?P<name>[A-Z]+)", "role"),
]
Q_START = re.compile(r"(What is the relationship|Are points|Do points|Is point|Are lines|Is line segment|"
                     r"Is [A-Z]{2} (?:the|a|an|one) )")


@dataclass
class Reading:
    question: dict | None
    state: State
    unparsed: list


def read(body: str) -> Reading:
    """Premise facts and the question of an anchor-worded body (answer choices already split off)."""
    m = Q_START.search(body)
    st = State()
    if not m:
        return Reading(None, st, [body.strip()])
    premise, qtext = body[:m.start()], body[m.start():].strip().rstrip("?").strip()
    question = None
    for pat, kind in QUESTIONS:
        q = re.fullmatch(pat, qtext, flags=re.IGNORECASE)
        if q:
            question = {"kind": kind, **q.groupdict()}
            break
    unparsed = [] if question else [qtext]
    for sentence in re.split(r"(?<=[a-z0-9°)])\.\s*(?=[A-Z∠])|\.\s+", premise.strip()):
        sentence = sentence.strip().rstrip(".")
        if sentence:
            unparsed += read_clause(sentence, st)
    _finish(st)
    return Reading(question, st, unparsed)


def _finish(st: State):
    for name in st.trapezoids:  # bases never named: either pair of opposite sides is parallel
        st.add(("or", [("par", name[0:2], name[2:4]), ("par", name[1:3], name[3] + name[0])]))
    st.trapezoids = []
    facts = []
    for f in st.facts:
        if f[0] == "centroid3":
            p, (a, b, c) = f[1], f[2]
            mid = "g" + b + c
            st.points.add(mid)
            facts += [("mid", mid, b + c), ("ratio", p, [a, mid], 2 / 3)]
        elif f[0] == "notcoin":
            facts.append(("noncoll", f[1] + f[2][0]))
        else:
            facts.append(f)
    st.facts = facts

