"""A synthetic multi-hop world: invented names, functional relations, short documents, chained questions.

Names are the same in every world (1,500 one-word inventions, each with a fixed type); the facts
linking them are drawn from the world's seed, so training worlds (seeds 0-99) and evaluation worlds
(1000+) share the vocabulary but not the facts: a reader can only answer by reading documents.

Every fact becomes one ~25-word document (title = its subject): the fact in one of 2-3 templates
plus two filler sentences, one naming another entity of the world (so a bridge entity also shows up
in documents that say nothing about it). Same-relation documents on other entities are the natural
distractors. A question of h hops nests relation nouns ("what is the capital of the country of the
birthplace of zorvak ?") and carries its gold decomposition: per hop the sub-question, its answer
and the document that states it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

TYPES = ("person", "city", "country", "company")
TYPE_SIZES = {"person": 600, "city": 350, "country": 150, "company": 400}

# relation -> (subject type, object type, question noun, document templates)
RELATIONS: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "founded_by": ("company", "person", "founder", (
        "{o} is the founder of {s} .", "{s} was started by its founder {o} .",
        "the company {s} names {o} as its founder .")),
    "headquartered_in": ("company", "city", "headquarters", (
        "the headquarters of {s} are in {o} .", "{s} keeps its headquarters in the city of {o} .")),
    "born_in": ("person", "city", "birthplace", (
        "{s} was born in {o} , the birthplace of the family .", "the birthplace of {s} is {o} .",
        "{o} is known as the birthplace of {s} .")),
    "works_for": ("person", "company", "employer", (
        "{s} works for the employer {o} .", "the employer of {s} is {o} .",
        "{o} is the employer of {s} .")),
    "married_to": ("person", "person", "spouse", (
        "{s} is the spouse of {o} .", "the spouse of {s} is {o} .")),
    "located_in": ("city", "country", "country", (
        "the city {s} lies in the country {o} .", "{s} is a city in the country of {o} .")),
    "capital_of": ("country", "city", "capital", (
        "the capital of {s} is {o} .", "{o} serves as the capital of {s} .",
        "{s} has {o} as its capital .")),
    "led_by": ("country", "person", "leader", (
        "the leader of {s} is {o} .", "{s} is governed by its leader {o} .")),
}

FILLER = (
    "it appears in many old records and local stories .",
    "people often talk about it at markets and fairs .",
    "the details were written down long ago by travellers .",
    "this is noted in several short reports from the region .",
    "much of this was recorded during a quiet year .",
)
MENTION = (
    "{x} was also mentioned in the same report .",
    "a visitor named {x} once wrote about this .",
    "{x} appears nearby in the old records .",
)

_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "gr", "kl", "tr", "sk")
_VOWELS = ("a", "e", "i", "o", "u", "ae", "ou")
_CODAS = ("", "n", "r", "l", "x", "k", "th", "sh")


def names() -> dict[str, str]:
    """The 1,500 invented names, each with its type (same in every world)."""
    rng = random.Random(20241005)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < sum(TYPE_SIZES.values()):
        word = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.randint(2, 3)))
        word += rng.choice(_CODAS)
        if word not in seen:
            seen.add(word)
            out.append(word)
    typed, i = {}, 0
    for t in TYPES:
        for w in out[i: i + TYPE_SIZES[t]]:
            typed[w] = t
        i += TYPE_SIZES[t]
    return typed


def vocabulary() -> list[str]:
    """Every word a world's prompts use (templates, fillers, prompt markers), names last."""
    from toolkit.rag.prompts import PROMPT_WORDS

    words: list[str] = []
    texts = [t for r in RELATIONS.values() for t in r[3]] + list(FILLER) + list(MENTION)
    texts += [r[2] for r in RELATIONS.values()] + list(PROMPT_WORDS)
    for text in texts:
        for w in text.split():
            if "{" not in w and w not in words:
                words.append(w)
    return words + list(names())


@dataclass
class Doc:
    id: str
    title: str
    text: str

    def record(self) -> dict:
        return {"id": self.id, "title": self.title, "text": self.text}


@dataclass
class Question:
    id: str
    question: str
    answers: list[str]
    hops: int
    decomposition: list[dict] = field(default_factory=list)  # [{question, answer, doc}]
    split: str = "test"

    def record(self) -> dict:
        return {"id": self.id, "question": self.question, "answers": self.answers, "hops": self.hops,
                "decomposition": self.decomposition, "split": self.split}


def sub_question(relation: str, subject: str) -> str:
    return f"what is the {RELATIONS[relation][2]} of {subject} ?"


def chain_question(relations: list[str], start: str) -> str:
    nouns = " of ".join(f"the {RELATIONS[r][2]}" for r in reversed(relations))
    return f"what is {nouns} of {start} ?"


@dataclass
class World:
    seed: int
    docs: list[Doc]
    questions: list[Question]
    facts: dict[tuple[str, str], str]  # (subject, relation) -> object
    fact_doc: dict[tuple[str, str], str]  # (subject, relation) -> doc id


def generate(seed: int, *, entities: dict[str, int] | None = None, per_hop: int = 200, demo_per_hop: int = 50,
             max_hops: int = 4) -> World:
    """The world of `seed`: entities drawn from the fixed names, facts, documents, questions per hop count.

    `entities`: how many of each type take part (defaults give ~700 documents). Per hop count 1..max_hops,
    `per_hop` test questions plus `demo_per_hop` for the demonstration pool (split "demo")."""
    rng = random.Random(seed)
    sizes = entities or {"person": 120, "city": 70, "country": 30, "company": 60}
    by_type: dict[str, list[str]] = {t: [] for t in TYPES}
    for w, t in names().items():
        by_type[t].append(w)
    ents = {t: sorted(rng.sample(by_type[t], sizes[t])) for t in TYPES}
    facts: dict[tuple[str, str], str] = {}
    for rel, (st, ot, _, _) in RELATIONS.items():
        subjects = ents[st]
        if rel == "capital_of":  # distinct capitals
            objs = rng.sample(ents[ot], len(subjects)) if len(ents[ot]) >= len(subjects) else None
            for i, s in enumerate(subjects):
                facts[(s, rel)] = objs[i] if objs else rng.choice(ents[ot])
            continue
        for s in subjects:
            choices = [o for o in ents[ot] if o != s] if st == ot else ents[ot]
            facts[(s, rel)] = rng.choice(choices)
    every = [e for t in TYPES for e in ents[t]]
    docs, fact_doc = [], {}
    for i, ((s, rel), o) in enumerate(sorted(facts.items())):
        text = " ".join([rng.choice(RELATIONS[rel][3]).format(s=s, o=o), rng.choice(FILLER),
                         rng.choice(MENTION).format(x=rng.choice(every))])
        doc = Doc(f"w{seed}-d{i}", s, text)
        docs.append(doc)
        fact_doc[(s, rel)] = doc.id
    out_rel: dict[str, list[str]] = {t: [r for r, v in RELATIONS.items() if v[0] == t] for t in TYPES}
    questions: list[Question] = []
    for hops in range(1, max_hops + 1):
        seen: set[tuple] = set()
        made, tries = 0, 0
        while made < per_hop + demo_per_hop and tries < 200 * (per_hop + demo_per_hop):
            tries += 1
            start = rng.choice(every)
            node, visited, rels, steps = start, {start}, [], []
            ok = True
            for _ in range(hops):
                rel = rng.choice(out_rel[entity_type(node)])
                nxt = facts[(node, rel)]
                if nxt in visited:
                    ok = False
                    break
                steps.append({"question": sub_question(rel, node), "answer": nxt, "doc": fact_doc[(node, rel)]})
                rels.append(rel)
                visited.add(nxt)
                node = nxt
            key = (start, tuple(rels))
            if not ok or key in seen:
                continue
            seen.add(key)
            split = "demo" if made < demo_per_hop else "test"
            questions.append(Question(f"w{seed}-h{hops}-{made}", chain_question(rels, start), [node], hops,
                                      steps, split))
            made += 1
    return World(seed, docs, questions, facts, fact_doc)


_NAMES_CACHE: dict[str, str] = {}


def entity_type(name: str) -> str:
    if not _NAMES_CACHE:
        _NAMES_CACHE.update(names())
    return _NAMES_CACHE[name]
