"""Concept schemas: the notebook's `p(...)` notation, a JSON form validated by `jsonschema`, and the
grounding order (a DAG: `networkx` checks acyclicity and gives a deterministic topological order).

Notation: `p(image | concept=C) = p(t1 | concept=C) p(t2 | concept=C, t1) ... p(image | t1, ...)`
names the concept, each term's parents and the terms the image is finally conditioned on. Hyphens
in terms read as spaces in questions (`entry-exit` -> "entry exit").

JSON: {"concept", "name"?, "nodes": [{"id", "question", "parents", "answer_type", "foreach"?}], "final",
"compose"?}. `foreach` ({"row": "1..{size}", "col": "1..{size}-1"}) expands a node once per index
combination, the bounds read from grounded parents; `{row}` in the question takes the index and the
expanded id is `id[row,col]`.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.core.errors import InputError

FOREACH = r"^\s*\d+\s*\.\.\s*(\d+|\{[A-Za-z_][A-Za-z0-9_]*\}(\s*[-+]\s*\d+)?)\s*$"
JSON_SCHEMA = {
    "type": "object",
    "required": ["concept", "nodes", "final"],
    "properties": {
        "type": {"type": "string"}, "schema": {"type": "integer"},
        "concept": {"type": "string", "minLength": 1},
        "name": {"type": "string", "minLength": 1},
        "notation": {"type": "string"},
        "compose": {"type": "string"},
        "final": {"type": "array", "items": {"type": "string"}},
        "nodes": {"type": "array", "minItems": 1, "items": {
            "type": "object",
            "required": ["id", "question", "parents"],
            "properties": {
                "id": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$"},
                "question": {"type": "string", "minLength": 1},
                "parents": {"type": "array", "items": {"type": "string"}},
                "answer_type": {"enum": ["word", "number", "cell", "phrase"]},
                "foreach": {"type": "object", "additionalProperties": {"type": "string", "pattern": FOREACH}},
            },
            "additionalProperties": False,
        }},
    },
}

TERM_RE = re.compile(r"p\(\s*([^|()]+?)\s*\|\s*([^()]*?)\s*\)")
PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class Node:
    id: str
    question: str
    parents: tuple[str, ...]
    answer_type: str = "word"
    foreach: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Schema:
    concept: str
    name: str  # how questions call the concept ("tic-tac-toe" reads "tic tac toe")
    nodes: tuple[Node, ...]
    final: tuple[str, ...]
    compose: str | None = None

    def node(self, node_id: str) -> Node:
        return next(n for n in self.nodes if n.id == node_id)

    def to_json(self) -> dict[str, Any]:
        nodes = []
        for n in self.nodes:
            d: dict[str, Any] = {"id": n.id, "question": n.question, "parents": list(n.parents),
                                 "answer_type": n.answer_type}
            if n.foreach:
                d["foreach"] = dict(n.foreach)
            nodes.append(d)
        out = {"type": "dsg.schema", "schema": 1, "concept": self.concept, "name": self.name,
               "notation": to_notation(self), "nodes": nodes, "final": list(self.final)}
        if self.compose:
            out["compose"] = self.compose
        return out


def spoken(term: str) -> str:
    return term.replace("-", " ").replace("_", " ").strip()


def parse_notation(text: str, where: str = "notation") -> Schema:
    """A schema from the `p(...)` notation; an unparsable one is an input error naming `where`."""
    text = " ".join(text.split())
    parts = re.split(r"(?<=\))\s*=\s*", text, maxsplit=1)
    if len(parts) != 2:
        raise InputError(f"{where}: unparsable schema notation (expected 'p(image | concept=NAME) = ...')")
    head, body = parts
    m = TERM_RE.fullmatch(head.strip())
    if not m or m.group(1) != "image" or not m.group(2).startswith("concept="):
        raise InputError(f"{where}: unparsable schema notation (expected 'p(image | concept=NAME) = ...')")
    name = m.group(2)[len("concept="):].strip()
    terms = TERM_RE.findall(body)
    if not terms or TERM_RE.sub("", body).strip():
        raise InputError(f"{where}: unparsable schema notation (expected a product of p(term | ...) factors)")
    nodes, final = [], None
    for term, given in terms:
        conds = [c.strip() for c in given.split(",") if c.strip()]
        if term == "image":
            final = tuple(_node_id(c) for c in conds)
            continue
        if conds[:1] != [f"concept={name}"]:
            raise InputError(f"{where}: p({term} | ...) does not start its conditions with concept={name}")
        nodes.append(Node(id=_node_id(term), question=spoken(term), parents=tuple(_node_id(c) for c in conds[1:])))
    if final is None:
        raise InputError(f"{where}: unparsable schema notation (no final p(image | ...) factor)")
    concept = re.sub(r"[^a-z0-9]", "", name.lower())
    return check(Schema(concept=concept, name=name, nodes=tuple(nodes), final=final), where)


def _node_id(term: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", term.strip())


def to_notation(schema: Schema) -> str:
    """The `p(...)` form of a schema (foreach bounds are not part of the notation)."""
    c = f"concept={schema.name}"
    factors = [f"p({_term(n.id)} | {', '.join([c, *map(_term, n.parents)])})" for n in schema.nodes]
    factors.append(f"p(image | {', '.join(map(_term, schema.final))})")
    return f"p(image | {c}) = " + " ".join(factors)


def _term(node_id: str) -> str:
    return node_id.replace("_", "-")


def from_json(data: Any, where: str) -> Schema:
    """Validate a JSON schema document and check its graph; errors name `where` and the node."""
    import jsonschema

    try:
        jsonschema.validate(data, JSON_SCHEMA)
    except jsonschema.ValidationError as exc:
        path = "/".join(str(p) for p in exc.absolute_path) or "(top)"
        raise InputError(f"{where}: {path}: {exc.message}") from None
    nodes = tuple(Node(id=n["id"], question=n["question"], parents=tuple(n["parents"]),
                       answer_type=n.get("answer_type", "word"), foreach=tuple(n.get("foreach", {}).items()))
                  for n in data["nodes"])
    schema = Schema(concept=data["concept"], name=data.get("name", data["concept"]), nodes=nodes,
                    final=tuple(data["final"]), compose=data.get("compose"))
    return check(schema, where)


def check(schema: Schema, where: str) -> Schema:
    """Duplicate ids, unknown parents or placeholders and cycles are input errors naming the node."""
    import networkx as nx

    seen: set[str] = set()
    for n in schema.nodes:
        if n.id in seen:
            raise InputError(f"{where}: node {n.id!r}: duplicate id")
        seen.add(n.id)
    for n in schema.nodes:
        for p in n.parents:
            if p not in seen:
                raise InputError(f"{where}: node {n.id!r}: unknown parent {p!r}")
        allowed = {v for v, _ in n.foreach}
        for placeholder in PLACEHOLDER_RE.findall(n.question):
            if placeholder not in allowed:
                raise InputError(f"{where}: node {n.id!r}: unknown placeholder {{{placeholder}}} in its question")
        for var, bounds in n.foreach:
            for ref in PLACEHOLDER_RE.findall(bounds):
                if ref not in n.parents:
                    raise InputError(f"{where}: node {n.id!r}: foreach {var} reads {{{ref}}}, not one of its parents")
    for f in schema.final:
        if f not in seen:
            raise InputError(f"{where}: final conditioning names unknown node {f!r}")
    g = graph(schema)
    try:
        cycle = nx.find_cycle(g)
    except nx.NetworkXNoCycle:
        return schema
    raise InputError(f"{where}: node {cycle[0][1]!r}: cycle " + " -> ".join([cycle[0][0]] + [b for _, b in cycle]))


def graph(schema: Schema):
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(n.id for n in schema.nodes)
    g.add_edges_from((p, n.id) for n in schema.nodes for p in n.parents)
    return g


def order(schema: Schema) -> list[str]:
    """Parents before children; ties broken by the nodes' listed order (deterministic)."""
    import networkx as nx

    rank = {n.id: i for i, n in enumerate(schema.nodes)}
    return list(nx.lexicographical_topological_sort(graph(schema), key=lambda x: f"{rank[x]:06d}"))


def levels(schema: Schema) -> list[list[str]]:
    """Nodes grouped by depth: every node of a level depends on earlier levels only (batched grounding)."""
    depth: dict[str, int] = {}
    for nid in order(schema):
        parents = schema.node(nid).parents
        depth[nid] = 1 + max((depth[p] for p in parents), default=-1)
    out: list[list[str]] = [[] for _ in range(max(depth.values()) + 1)]
    for nid in order(schema):
        out[depth[nid]].append(nid)
    return out


def _bound(text: str, values: dict[str, str], node: str) -> int:
    m = re.fullmatch(r"\s*(\d+|\{(\w+)\}(?:\s*([-+])\s*(\d+))?)\s*", text)
    assert m is not None  # the JSON schema's pattern
    if m.group(2) is None:
        return int(m.group(1))
    raw = values.get(m.group(2), "")
    digits = re.search(r"\d+", raw)
    if digits is None:
        return 0  # an ungrounded or non-numeric size expands to nothing
    n = int(digits.group())
    return n - int(m.group(4)) if m.group(3) == "-" else n + int(m.group(4) or 0)


MAX_EXPANSION = 64


def expand(node: Node, values: dict[str, str]) -> list[tuple[str, str]]:
    """(expanded id, term) pairs of a node given its grounded parents; one pair for a plain node."""
    if not node.foreach:
        return [(node.id, node.question)]
    ranges = []
    for var, bounds in node.foreach:
        lo, hi = bounds.split("..", 1)
        ranges.append((var, range(int(lo), min(_bound(hi, values, node.id), MAX_EXPANSION) + 1)))
    out = []
    for combo in itertools.product(*(r for _, r in ranges)):
        subs = {var: str(i) for (var, _), i in zip(ranges, combo, strict=True)}
        term = PLACEHOLDER_RE.sub(lambda m, subs=subs: subs[m.group(1)], node.question)
        out.append((f"{node.id}[{','.join(subs.values())}]", term))
    return out


def load_schema(path: str | Path) -> Schema:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{p}: no such schema file") from None
    stripped = text.lstrip()
    if not stripped.startswith("{"):  # the notation form
        return parse_notation(text, where=str(p))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{p}: line {exc.lineno}: not JSON ({exc.msg})") from None
    return from_json(data, str(p))


def load_schemas(directory: str | Path) -> dict[str, Schema]:
    """Every `*.schema.json` of a directory, keyed by concept."""
    d = Path(directory)
    if not d.is_dir():
        raise InputError(f"{d}: no such schema directory")
    out = {}
    for f in sorted(d.glob("*.schema.json")):
        s = load_schema(f)
        out[s.concept] = s
    return out
