"""Random constructions rendered as GeomRel-style multiple-choice items with proven labels."""

from __future__ import annotations

import hashlib
import random
import string

import sympy as sp

from toolkit.core.errors import InputError
from toolkit.geomrel import dsl
from toolkit.geomrel import exact as X
from toolkit.geomrel.labels import Undecided, derive

LEVEL_DEPTHS = {"basic": (1,), "advanced": (2, 3)}
LETTERS = "ABCDE"
MAX_OPS = 40


def _fresh(used: set, rng: random.Random) -> str:
    name = rng.choice([c for c in string.ascii_uppercase if c not in used])
    used.add(name)
    return name


def _derived_step(op: str, pts_so_far: list[str], shape_steps: list[dict], used: set, rng) -> dict:
    new = _fresh(used, rng)
    if op == "centroid":
        tri = rng.choice([s for s in shape_steps if s["op"] in dsl.TRIANGLES])
        return {"op": op, "pts": [new, *tri["pts"]]}
    need = len(dsl.roles(op)) - 1
    return {"op": op, "pts": [new, *rng.sample(pts_so_far, need)]}


def build_program(rng: random.Random, depth: int, allowed: list[str], distractor: bool) -> list[dict]:
    """A shape plus depth-1 derived steps, each using the newest point; optionally one unrelated step."""
    used: set = set()
    shapes = [op for op in dsl.SHAPES if op in allowed]
    if not shapes:
        raise InputError("--exclude-templates removes every shape template")
    shape_op = rng.choice(shapes)
    derived = [op for op in dsl.DERIVED if op in allowed and op != "free"
               and (op != "centroid" or shape_op in dsl.TRIANGLES)]
    steps = [{"op": shape_op, "pts": [_fresh(used, rng) for _ in dsl.roles(shape_op)]}]
    points = list(steps[0]["pts"])
    for _ in range(depth - 1):
        if not derived:
            raise InputError("--exclude-templates removes every derived template")
        op = rng.choice(derived)
        step = _derived_step(op, points, steps, used, rng)
        if op != "centroid" and points[-1] not in step["pts"][1:] and len(points) > len(steps[0]["pts"]):
            step["pts"][1] = points[-1]  # chain through the newest point
            if len(set(step["pts"][1:])) < len(step["pts"]) - 1:
                step["pts"][1:] = rng.sample(points, len(step["pts"]) - 1)
        steps.append(step)
        points.append(step["pts"][0])
    if distractor and derived:
        op = rng.choice(derived)
        steps.append({**_derived_step(op, points, steps, used, rng), "irrelevant": True})
    return steps


def pick_question(rng: random.Random, domain: str, steps: list[dict]) -> dict:
    relevant = [s for s in steps if not s.get("irrelevant")]
    points = [p for s in relevant for p in (s["pts"] if s["op"] in dsl.SHAPES else s["pts"][:1])]
    newest = points[-1]
    if domain == "line":
        a = [newest, rng.choice([p for p in points if p != newest])] if len(relevant) > 1 else rng.sample(points, 2)
        b = rng.sample(points, 2)
        return {"domain": domain, "a": a, "b": b}
    if domain == "angle":
        a = rng.sample(points, 3)
        if len(relevant) > 1 and newest not in a:
            a[rng.randrange(3)] = newest
        return {"domain": domain, "a": a, "b": rng.sample(points, 3)}
    shape = relevant[0]
    inner = [p for p in points if p not in shape["pts"]]
    if not inner:
        raise Undecided("no point outside the shape's vertices")
    return {"domain": domain, "a": [rng.choice(inner)], "b": [], "shape": shape["pts"], "shape_op": shape["op"]}


def _valid_question(q: dict) -> bool:
    if q["domain"] == "line":
        return len(set(q["a"])) == 2 and len(set(q["b"])) == 2 and set(q["a"]) != set(q["b"])
    if q["domain"] == "angle":
        return len(set(q["a"])) == 3 and len(set(q["b"])) == 3 and q["a"] != q["b"] and q["a"] != q["b"][::-1]
    return True


def render(steps: list[dict], q: dict, rng: random.Random) -> tuple[str, list[str]]:
    clauses = [dsl.render_step(s, rng.randrange(2)) for s in steps]
    domain = q["domain"]
    if domain == "shape":
        ask = dsl.QUESTIONS["shape"].format(a=q["a"][0], b=dsl.element_text("shape", q["shape"], q["shape_op"]))
    else:
        ask = dsl.QUESTIONS[domain].format(a="".join(q["a"]), b="".join(q["b"]))
    options = [text for _, text, _ in dsl.RELATIONS[domain]]
    return " ".join(clauses) + " " + ask, options


def rephrase(item: dict, rng: random.Random) -> str:
    """Another text of a generated item with the same label: fresh phrasings, and for line and angle questions
    the two elements in either order, each written either way round (AB is BA; the angle ABC is CBA)."""
    steps, q = item["construction"]["steps"], dict(item["construction"]["question"])
    if q["domain"] in ("line", "angle"):
        a, b = (q["a"][::-1] if rng.random() < 0.5 else q["a"]), (q["b"][::-1] if rng.random() < 0.5 else q["b"])
        q["a"], q["b"] = (b, a) if rng.random() < 0.5 else (a, b)
    body, _ = render(steps, q, rng)
    return question_text(body, item["options"], spaced=rng.random() < 0.5)


def question_text(body: str, options: list[str], spaced: bool) -> str:
    joined = " ".join(f"{LETTERS[i]}. {o}" for i, o in enumerate(options))
    return f"{body}\nAnswer choices:{' ' if spaced else ''}{joined}"


def generate_item(rng: random.Random, level: str, domain: str, depth: int | None, allowed: list[str],
                  index: int) -> dict:
    for _ in range(200):
        d = depth or rng.choice(LEVEL_DEPTHS[level])
        # a containment question needs a point besides the shape's vertices: its step is one more clause
        steps = build_program(rng, d + (domain == "shape"), allowed, distractor=level == "advanced")
        try:
            q = pick_question(rng, domain, steps)
            if not _valid_question(q):
                continue
            real = X.realize([s for s in steps])
            if X.coincident_pair(real, rng) is not None:
                continue  # two names for one point: the text would describe a degenerate figure
            if max(sp.count_ops(c) for xy in real.points.values() for c in xy) > MAX_OPS:
                continue  # nested rational constructions get too large for exact factoring in reasonable time
            relation, witnesses = derive(real, q, rng)
        except Undecided:
            continue
        body, options = render(steps, q, rng)
        text = question_text(body, options, spaced=rng.random() < 0.5)
        letter = LETTERS[options.index(dsl.option_text(domain, relation))]
        return {
            "id": f"gen-{level}-{domain}-{index:05d}-{hashlib.sha1(text.encode()).hexdigest()[:8]}",
            "question": text, "options": options, "answer": letter,
            "relation": dsl.relation_code(domain, relation), "canonical": relation,
            "level": level, "domain": domain, "depth": d,
            "templates": [s["op"] for s in steps],
            "construction": {"steps": steps, "question": q}, "witnesses": witnesses, "source": "generated",
        }
    raise Undecided(f"could not build a decidable {level} {domain} item")


def generate(n: int, seed: int, level: str, domains: list[str], depth: int | None = None,
             exclude: list[str] = ()) -> list[dict]:
    """n items, domains in turn; the same arguments give the same items."""
    if level not in LEVEL_DEPTHS:
        raise InputError(f"--level {level}: expected basic or advanced")
    for d in domains:
        if d not in dsl.DOMAINS:
            raise InputError(f"--domains: unknown domain {d!r} (expected {', '.join(dsl.DOMAINS)})")
    for t in exclude:
        if t not in dsl.TEMPLATES:
            raise InputError(f"--exclude-templates: unknown template {t!r} (known: {', '.join(dsl.TEMPLATES)})")
    if depth is not None and not 1 <= depth <= 3:
        raise InputError(f"--depth {depth}: expected 1 to 3")
    allowed = [t for t in dsl.TEMPLATES if t not in exclude]
    items = []
    for i in range(n):
        rng = random.Random(f"{seed}:{level}:{i}")
        items.append(generate_item(rng, level, domains[i % len(domains)], depth, allowed, i))
    return items
