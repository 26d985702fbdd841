"""Running items in one of three modes.

- direct: the question alone; cot: the question plus "reason over the concept's parts".
- dsg: the schema's nodes grounded level by level (every item of a batch asks its level's questions in
  one batched call), each question conditioned on the parents already grounded; then `--compose vlm`
  asks the question after the grounding turns with the grounded scenario prefixed, or `--compose
  program` maps the grounded values to the answer with the concept's registered composer.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from toolkit.core.errors import InputError, RuntimeFailure
from toolkit.core.records import make_record
from toolkit.dsg.compose import composer_for
from toolkit.dsg.data import Item
from toolkit.dsg.ground import GroundingCache
from toolkit.dsg.prompts import clean_answer, composition_question, cot_question, direct_question, with_options
from toolkit.dsg.resolve import Ask, level_asks
from toolkit.dsg.schema import Schema, levels
from toolkit.dsg.score import choice_of

MODES = ("direct", "cot", "dsg")
COMPOSE = ("program", "vlm")


def final_answer(raw: str) -> str:
    """The answer of a reply: the text after the last 'Answer:' when there is one (cot), cleaned."""
    low = raw.lower()
    cut = low.rfind("answer:")
    return clean_answer(raw[cut + len("answer:"):] if cut >= 0 else raw)


def _answer(item: Item, mode: str, compose: str | None, raw: str, answer: str, source: str) -> dict[str, Any]:
    # multiple choice: whether the answer names one of the options (eval scores one that does not as wrong)
    in_choices = choice_of(answer, list(item.choices)) is not None if item.choices else None
    return make_record("dsg.answer", id=item.id, concept=item.concept, task=item.task,
                       question_type=item.question_type, mode=mode, compose=compose, answer=answer, raw=raw,
                       model=source, in_choices=in_choices)


@dataclass
class ChoiceTally:
    """Answers of multiple-choice items that name none of the options: an abstention, counted wrong by `eval`
    and reported at the end; a run in which no such answer names an option answered nothing (exit 1)."""

    asked: int = 0
    outside: int = 0
    first: str | None = None

    def add(self, record: dict[str, Any]) -> None:
        if record.get("type") != "dsg.answer" or record.get("in_choices") is None:
            return
        self.asked += 1
        if not record["in_choices"]:
            self.outside += 1
            self.first = self.first or f"item {record['id']} answered {record['answer']!r}"

    def summary(self) -> str | None:
        if self.asked and self.outside == self.asked:
            raise RuntimeFailure(f"none of the {self.asked} multiple-choice answer(s) names one of its options "
                                 f"(first: {self.first}); the records are kept with in_choices false")
        if self.outside:
            return (f"{self.outside} of {self.asked} multiple-choice answer(s) name none of the options "
                    f"(in_choices false, scored wrong; first: {self.first})")
        return None


def check_items(items: list[Item], schemas: dict[str, Schema], mode: str, compose: str) -> None:
    for item in items:
        if mode == "dsg" and item.concept not in schemas:
            raise InputError(f"item {item.id}: concept {item.concept!r} has no schema "
                             f"(have: {', '.join(sorted(schemas)) or 'none'})")
        if mode == "dsg" and compose == "program":
            composer_for(schemas[item.concept].compose, item)


def run_baseline(items: list[Item], asker, mode: str, cache: GroundingCache,
                 batch_items: int = 32) -> Iterator[dict[str, Any]]:
    """direct / cot answers; single-turn prompts of a batch go out in one call when the asker batches."""
    for start in range(0, len(items), batch_items):
        batch = items[start:start + batch_items]
        prompts = []
        for item in batch:
            q = with_options(item.question, item.choices)
            prompts.append(direct_question(q) if mode == "direct" else cot_question(item.concept, q))
        if mode == "direct" and getattr(asker, "batches", False):
            raws = cache.ask_all(asker, [(it.image, p) for it, p in zip(batch, prompts, strict=True)])
        else:
            raws = [cache.converse(asker, it.image, [(p, None)], **({} if mode == "cot" else {"max_new_tokens": 16}))
                    for it, p in zip(batch, prompts, strict=True)]
        for item, raw in zip(batch, raws, strict=True):
            yield _answer(item, mode, None, raw, final_answer(raw), asker.name)


def run_dsg(items: list[Item], schemas: dict[str, Schema], asker, compose: str, cache: GroundingCache,
            batch_items: int = 16, per_question: bool = False) -> Iterator[dict[str, Any]]:
    """Grounding and answer records, item by item (a batch's groundings precede its answers)."""
    for start in range(0, len(items), batch_items):
        batch = items[start:start + batch_items]
        values: dict[str, dict[str, str]] = {it.id: {} for it in batch}
        turns: dict[str, list[tuple[str, str]]] = {it.id: [] for it in batch}
        records: dict[str, list[dict[str, Any]]] = {it.id: [] for it in batch}
        plans = {it.id: levels(schemas[it.concept]) for it in batch}
        depth = max(len(p) for p in plans.values())
        for level in range(depth):
            asks: list[tuple[Item, Ask]] = []
            for it in batch:
                if level < len(plans[it.id]):
                    asks += [(it, a) for a in level_asks(schemas[it.concept], plans[it.id][level], values[it.id])]
            _ground_level(asks, asker, cache, values, turns, records, per_question)
        for it in batch:
            yield from records[it.id]
            schema = schemas[it.concept]
            if compose == "program":
                answer = composer_for(schema.compose, it)(values[it.id], it)
                yield _answer(it, "dsg", compose, answer, answer, asker.name)
                continue
            grounded = [(q_term, v) for q_term, v in _grounded_terms(schema, values[it.id])]
            question = composition_question(schema.name, grounded, with_options(it.question, it.choices))
            raw = cache.converse(asker, it.image, [*turns[it.id], (question, None)])
            yield _answer(it, "dsg", compose, raw, final_answer(raw), asker.name)


def _ground_level(asks, asker, cache: GroundingCache, values, turns, records, per_question: bool) -> None:
    keys = [cache.key(it.image, a.question, asker.name) for it, a in asks]
    todo = [i for i, k in enumerate(keys) if cache.get(k) is None]
    pairs = [(asks[i][0].image, asks[i][1].question) for i in todo]
    raws = [r for p in pairs for r in asker.ask([p])] if per_question else asker.ask(pairs)
    fresh = dict(zip(todo, raws, strict=True))
    for i, (it, a) in enumerate(asks):
        if i in fresh:
            cache.put(keys[i], fresh[i], a.question)
        raw = cache.get(keys[i]) or ""
        answer = clean_answer(raw)
        values[it.id][a.key] = answer
        turns[it.id].append((a.question, answer))
        records[it.id].append(make_record("dsg.grounding", id=it.id, concept=it.concept, node=a.key,
                                          question=a.question, answer=answer, raw=raw, cached=i not in fresh))


def _grounded_terms(schema: Schema, values: dict[str, str]) -> list[tuple[str, str]]:
    from toolkit.dsg.schema import expand

    out = []
    for nid in schema.final:
        for key, term in expand(schema.node(nid), values):
            if key in values:
                out.append((term, values[key]))
    return out
