"""Schema nodes resolved into grounding questions, given the values of their (already grounded) parents.

The generator resolves them with gold parent values (the primitive questions a model is trained on);
the runner with the values a VLM grounded.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.dsg.prompts import grounding_question
from toolkit.dsg.schema import Schema, expand, levels


@dataclass(frozen=True)
class Ask:
    node: str  # the schema node id
    key: str  # the expanded id, e.g. cell[1,2]
    term: str
    question: str


def parent_values(schema: Schema, node_id: str, values: dict[str, str]) -> list[tuple[str, str]]:
    """(term, value) of every grounded instance of the node's parents, in the schema's order."""
    out = []
    for p in schema.node(node_id).parents:
        for key, term in expand(schema.node(p), values):
            if key in values:
                out.append((term, values[key]))
    return out


def level_asks(schema: Schema, level: list[str], values: dict[str, str]) -> list[Ask]:
    """The questions of one DAG level, given the values of earlier levels."""
    asks = []
    for nid in level:
        parents = parent_values(schema, nid, values)
        for key, term in expand(schema.node(nid), values):
            asks.append(Ask(nid, key, term, grounding_question(schema.name, parents, term)))
    return asks


def gold_asks(schema: Schema, gold: dict[str, str]) -> list[tuple[Ask, str]]:
    """Every resolved question of the schema with gold parents, paired with its gold answer."""
    out = []
    for level in levels(schema):
        out.extend((a, gold[a.key]) for a in level_asks(schema, level, gold) if a.key in gold)
    return out
