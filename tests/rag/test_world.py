"""The synthetic world: deterministic, gold chains resolve through the documents, fresh facts per seed."""

from __future__ import annotations

import math

from toolkit.rag import world


def test_world_is_deterministic():
    a, b = world.generate(7, per_hop=20, demo_per_hop=5), world.generate(7, per_hop=20, demo_per_hop=5)
    assert [d.record() for d in a.docs] == [d.record() for d in b.docs]
    assert [q.record() for q in a.questions] == [q.record() for q in b.questions]
    assert [d.text for d in world.generate(8, per_hop=20).docs] != [d.text for d in a.docs]


def test_gold_chains_resolve_through_documents():
    w = world.generate(1000, per_hop=30, demo_per_hop=10)
    docs = {d.id: d for d in w.docs}
    assert {q.hops for q in w.questions} == {1, 2, 3, 4}
    for q in w.questions:
        assert len(q.decomposition) == q.hops
        subject = q.question.split()[-2]  # "... of NAME ?"
        for step in q.decomposition:
            doc = docs[step["doc"]]
            assert doc.title == subject and subject in step["question"]
            assert step["answer"] in doc.text.split()
            subject = step["answer"]
        assert q.answers == [subject]
    demo_ids = {q.question for q in w.questions if q.split == "demo"}
    assert demo_ids and not demo_ids & {q.question for q in w.questions if q.split == "test"}
    assert 20 <= sum(len(d.text.split()) for d in w.docs) / len(w.docs) <= 32  # ~25-word documents


def _pools(w: world.World) -> dict[str, set[str]]:
    pools: dict[str, set[str]] = {}
    for (s, rel), o in w.facts.items():
        pools.setdefault(world.RELATIONS[rel][1], set()).add(o)
        pools.setdefault(world.RELATIONS[rel][0], set()).add(s)
    return pools


def test_evaluation_and_training_worlds_share_facts_only_by_chance():
    ev = world.generate(1000, per_hop=1, demo_per_hop=1)
    pe = _pools(ev)
    observed = expected = 0.0
    for seed in range(5):
        tr = world.generate(seed, per_hop=1, demo_per_hop=1)
        pt = _pools(tr)
        for key, o in ev.facts.items():
            if key in tr.facts:
                observed += tr.facts[key] == o
                ot = world.RELATIONS[key[1]][1]
                expected += len(pe[ot] & pt[ot]) / (len(pe[ot]) * len(pt[ot]))
    assert expected > 1  # enough shared (subject, relation) pairs to judge
    assert observed <= expected + 3 * math.sqrt(expected) + 1, (observed, expected)


def test_names_are_fixed_and_typed():
    names = world.names()
    assert len(names) == 1500 and names == world.names()
    assert {t: sum(1 for v in names.values() if v == t) for t in world.TYPES} == world.TYPE_SIZES
