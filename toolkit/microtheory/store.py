"""Knowledge store construction (paper: "populate a knowledge store with model-generated sentences
that entail answers to training questions").

For each training question the LLM (1) rewrites question + correct option as a hypothesis, (2) is
sampled `proofs` times for lists of facts that together entail it, and (3) each list is checked by
the verifier (LLM-as-verifier, "do these premises entail the hypothesis?"). Verified lists are the
question's proofs; their sentences form the knowledge store, each with provenance (question id,
proof index). Unverified lists are kept in the record, marked, and never used downstream.

Choice made here: with `prune` (default on) a verified proof is reduced to a minimal one by
leave-one-out checks in order (drop a fact when the rest still entails the hypothesis), so facts
that play no part in the entailment (a model often adds true but irrelevant statements) do not
enter the store as support; the generated list is kept in the record as `generated`.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.core.records import make_record
from toolkit.microtheory import prompts
from toolkit.microtheory.data import Question
from toolkit.microtheory.verify import Verifier

ENTRY = "microtheory.entry"
SCHEMA = 1


def hypothesis_for(llm, question: str, option: str, cache: dict | None = None) -> str:
    key = (question, option)
    if cache is not None and key in cache:
        return cache[key]
    reply = llm.complete(prompts.hypothesis_messages(question, option), n=1, temperature=0.0, max_tokens=64)
    hyp = prompts.parse_hypothesis(reply.text)
    if cache is not None:
        cache[key] = hyp
    return hyp


def sample_facts(llm, question: str, option: str, hypothesis: str, n: int, temperature: float) -> list[list[str]]:
    reply = llm.complete(prompts.facts_messages(question, option, hypothesis), n=n, temperature=temperature,
                         max_tokens=256)
    return [prompts.parse_facts(t) for t in reply.texts]


def minimal_proof(facts: list[str], hypothesis: str, verifier) -> list[str]:
    """Drop, in order, each fact the others do not need (leave-one-out entailment checks)."""
    kept = list(facts)
    for fact in list(facts):
        rest = [f for f in kept if f != fact]
        if rest and verifier.entails(rest, hypothesis):
            kept = rest
    return kept


def build_entry(q: Question, llm, verifier: Verifier, *, proofs: int = 3, temperature: float = 0.7,
                prune: bool = True) -> dict:
    """The store record of one question: hypothesis, candidate proofs, which ones verified."""
    hyp = hypothesis_for(llm, q.question, q.answer_text)
    candidates = sample_facts(llm, q.question, q.answer_text, hyp, proofs, temperature)
    seen: set[tuple[str, ...]] = set()
    out = []
    for facts in candidates:
        key = tuple(facts)
        if not facts or key in seen:
            continue
        seen.add(key)
        proof = {"proof_id": f"{q.id}/p{len(out)}", "facts": facts, "verified": verifier.entails(facts, hyp)}
        if prune and proof["verified"]:
            minimal = minimal_proof(facts, hyp, verifier)
            if minimal != facts:
                if tuple(minimal) in seen:
                    continue  # prunes to a proof already kept
                seen.add(tuple(minimal))
                proof.update(facts=minimal, generated=facts)
        out.append(proof)
    return make_record(ENTRY, SCHEMA, question_id=q.id, question=q.question, answer=q.answer_text,
                       split=q.split, hypothesis=hyp, proofs=out, proven=any(p["verified"] for p in out))


def build_store(questions: list[Question], llm, verifier: Verifier, *, proofs: int = 3, temperature: float = 0.7,
                prune: bool = True, skip: set[str] = frozenset()) -> Iterator[dict]:
    for q in questions:
        if q.id in skip:
            continue
        yield build_entry(q, llm, verifier, proofs=proofs, temperature=temperature, prune=prune)


def verified_proofs(entry: dict) -> list[list[str]]:
    return [p["facts"] for p in entry.get("proofs", []) if p.get("verified")]


def verified_proof_ids(entry: dict) -> list[str]:
    return [p.get("proof_id", f"{entry['question_id']}/p{i}") for i, p in enumerate(entry.get("proofs", []))
            if p.get("verified")]
