"""dsg.item / dsg.primitive records: writing a generated split, reading items for a run or as gold."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.core.errors import InputError
from toolkit.core.records import make_record, read_records
from toolkit.dsg.generate import make_scene
from toolkit.dsg.resolve import gold_asks
from toolkit.dsg.schema import Schema
from toolkit.dsg.styles import Style

ITEM = "dsg.item"
PRIMITIVE = "dsg.primitive"


@dataclass(frozen=True)
class Item:
    """What a run may see of an item: never its answer or gold node values."""
    id: str
    image: str
    concept: str
    question: str
    question_type: str
    choices: tuple[str, ...] | None = None
    task: str | None = None


def generate_split(concepts: list[str], n: int, style: Style, seed: int, out: Path,
                   schemas: dict[str, Schema]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Render n scenes per concept under out/images; return (item records, primitive records)."""
    images = out / "images"
    images.mkdir(parents=True, exist_ok=True)
    items, prims = [], []
    for concept in concepts:
        for i in range(n):
            scene = make_scene(concept, style, seed, i)
            item_id = f"{concept}-{style.name}-{seed}-{i:05d}"
            rel = f"images/{item_id}.png"
            scene.image.save(out / rel)
            rec = make_record(ITEM, id=item_id, image=rel, concept=concept, question=scene.question,
                              answer=scene.answer, question_type=scene.question_type, task=scene.task,
                              style=style.name, seed=seed, gold_nodes=scene.nodes)
            if scene.choices is not None:
                rec["choices"] = scene.choices
            items.append(rec)
            if concept in schemas:
                for ask, gold in gold_asks(schemas[concept], scene.nodes):
                    prims.append(make_record(PRIMITIVE, id=item_id, image=rel, concept=concept, node=ask.key,
                                             question=ask.question, gold=gold))
    return items, prims


def _resolve(path: Path, image: str) -> str:
    p = Path(image)
    return str(p if p.is_absolute() else path.parent / p)


def read_items(path: str | Path) -> list[Item]:
    """Items for a run (image paths resolved next to the file); answers and gold nodes are not read."""
    p = Path(path)
    out = []
    for rec in read_records(p, types=[ITEM], required=("id", "image", "concept", "question")):
        choices = rec.get("choices")
        out.append(Item(id=str(rec["id"]), image=_resolve(p, rec["image"]), concept=rec["concept"],
                        question=rec["question"], question_type=rec.get("question_type", "open"),
                        choices=tuple(choices) if choices else None, task=rec.get("task")))
    return out


def read_gold(path: str | Path) -> dict[str, dict[str, Any]]:
    """Gold items by id; an item without an answer is an input error naming its line."""
    p = Path(path)
    out: dict[str, dict[str, Any]] = {}
    for i, rec in enumerate(read_records(p, types=[ITEM], required=("id", "concept")), 1):
        if rec.get("answer") in (None, ""):
            raise InputError(f"{p}: record {i} (id {rec['id']}): gold item without an answer")
        out[str(rec["id"])] = rec
    return out


def read_primitives(path: str | Path) -> list[dict[str, Any]]:
    p = Path(path)
    recs = list(read_records(p, types=[PRIMITIVE], required=("image", "question", "gold", "node")))
    for r in recs:
        r["image"] = _resolve(p, r["image"])
    return recs
