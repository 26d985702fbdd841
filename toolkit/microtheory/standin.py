"""A deterministic stand-in for an LLM, usable as `--llm py:toolkit.microtheory.standin:complete`.

No real language model exists on the machine that built this project, so the shipped replays
were recorded from this function. It is knowledge-based, not a language model:

* hypothesis: a few question templates ("Which of these ... VP?", "X is a kind of which of
  these?") turned into "Option VP." sentences;
* facts: searches its knowledge base (standin_kb) for a chain of taxonomy/material edges from the
  hypothesis subject to a class with a matching property and writes that chain. Samples with
  temperature > 0 vary deterministically (by a hash of the request and sample index): paraphrases,
  an extra irrelevant fact, a question-specific shortcut fact, or a broken proof that drops a
  link. For a hypothesis it cannot support it asserts a false membership (a misconception), as
  an LLM asked to justify a wrong option would;
* entailment: the rule-based checker in toolkit.microtheory.logic.
"""

from __future__ import annotations

import hashlib
import re

from toolkit.microtheory import logic, prompts
from toolkit.microtheory.standin_kb import EDGES, PROPS, display, edge_variants, prop_variants, sentence


def _h(*parts: object) -> int:
    return int(hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:12], 16)


_NAMES = {logic.norm_name(n): n for e in EDGES for n in (e[0], e[2])}
_EDGES_BY_MEMBER: dict[str, list[tuple[str, str, str]]] = {}
for _e in EDGES:
    _EDGES_BY_MEMBER.setdefault(logic.norm_name(_e[0]), []).append(_e)
_PROPS = [(logic.norm_name(s), logic.parse(prop_variants(s, p, x)[0]), s, p, x) for s, p, x in PROPS]
_MATERIALS = {logic.norm_name(c) for _m, r, c in EDGES if r == "made"}


def _phrase(option: str) -> str:
    name = _NAMES.get(logic.norm_name(option))
    if name is not None:
        return display(name)
    if option[:1].isupper() or option.lower().startswith(("a ", "an ", "the ")):
        return option
    return ("an " if option[:1].lower() in "aeiou" else "a ") + option


def make_hypothesis(question: str, option: str) -> str:
    q = " ".join(question.strip().split())
    subject = _phrase(option.strip())
    m = re.match(r"^(?P<x>.+?) is a (?:kind|type) of which of these\??$", q, flags=re.I)
    if m:
        return sentence(_phrase(m["x"]), f"is a kind of {logic.norm_name(option) and option.strip()}")
    m = re.match(r"^which (?:of these|one of these|of the following)?\s*(?P<rest>.+?)\?$", q, flags=re.I)
    if m:
        toks = m["rest"].split()
        for i, tok in enumerate(toks):
            if tok.lower() in logic.VERB_WORDS:
                return sentence(subject, " ".join(toks[i:]))
    return sentence(subject, f"is the answer to: {q}")


def _paths(start: str) -> list[list[tuple[str, str, str]]]:
    """Edge paths from `start` (breadth-first, deterministic order), including the empty path."""
    out = [[]]
    frontier = [(start, [])]
    seen = {start}
    while frontier:
        nxt = []
        for node, path in frontier:
            for edge in _EDGES_BY_MEMBER.get(node, []):
                target = logic.norm_name(edge[2])
                if target in seen:
                    continue
                seen.add(target)
                out.append(path + [edge])
                nxt.append((target, path + [edge]))
        frontier = nxt
    return out


def _end(path, start: str) -> str:
    return logic.norm_name(path[-1][2]) if path else start


def support(hypothesis: str) -> list[tuple[list[str], bool]] | None:
    """Proof variants as (list of fact-variant lists, is_true); None when nothing can be said."""
    hyp = logic.parse(hypothesis)
    if hyp is None:
        return None
    paths = _paths(hyp.subject)
    if hyp.kind in ("isa", "made"):
        for path in paths:
            if path and _end(path, hyp.subject) == hyp.target:
                return [[edge_variants(*e) for e in path]], True
        rel = "made" if hyp.kind == "made" else "kind"
        return [[[sentence(display(_NAMES.get(hyp.subject, hyp.subject)),
                           f"is {'made of' if rel == 'made' else 'a kind of'} "
                           f"{_NAMES.get(hyp.target, hyp.target)}")]]], False
    found = []
    for path in paths:
        end = _end(path, hyp.subject)
        for subj, parsed, s, p, extra in _PROPS:
            if subj == end and logic.predicates_match(parsed.predicate, hyp.predicate):
                found.append([*(edge_variants(*e) for e in path), prop_variants(s, p, extra)])
    if found:
        return found, True
    for subj, parsed, s, p, extra in _PROPS:  # misconception: claim membership in a class with the property
        if logic.predicates_match(parsed.predicate, hyp.predicate):
            rel = "is made of" if subj in _MATERIALS else "is a kind of"
            claim = sentence(display(_NAMES.get(hyp.subject, hyp.subject)), f"{rel} {s}")
            return [[[claim], prop_variants(s, p, extra)]], False
    return None


def _distractor(subject: str, used: list[str]) -> str | None:
    """A true but irrelevant property fact about one of the subject's classes."""
    parsed_used = [logic.parse(f) for f in used]
    for path in _paths(subject)[1:]:
        end = _end(path, subject)
        for subj, parsed, s, p, extra in _PROPS:
            if subj == end and not any(u is not None and u.kind == "prop" and u.subject == subj
                                       and logic.predicates_match(u.predicate, parsed.predicate)
                                       for u in parsed_used):
                return prop_variants(s, p, extra)[0]
    return None


def make_facts(hypothesis: str, sample: int, temperature: float) -> list[str]:
    proofs = support(hypothesis)
    if proofs is None:
        return []
    variants, _true = proofs
    r = _h(hypothesis, sample) if temperature > 0 and sample > 0 else 0
    chosen = variants[(r >> 4) % len(variants)] if r else variants[0]
    facts = []
    for i, options in enumerate(chosen):
        pick = _h(hypothesis, sample, i) % (len(options) + 2) if r else 0
        facts.append(options[pick if pick < len(options) else 0])
    roll = r % 100
    hyp = logic.parse(hypothesis)
    if r and roll < 20 and hyp is not None and hyp.kind == "prop":
        return [hypothesis]  # a question-specific shortcut fact: true but not general
    if r and roll < 32 and len(facts) > 1:
        return facts[1:]  # a broken proof: the taxonomy link is missing
    if r and roll < 60 and hyp is not None:
        extra = _distractor(hyp.subject, facts)
        if extra:
            facts.append(extra)
    return facts


def complete(messages, n=1, temperature=0.0, max_tokens=256, stop=None):
    task = prompts.task_of(messages)
    user = messages[-1]["content"]
    if task == "hypothesis":
        text = make_hypothesis(prompts.field(user, "Question"), prompts.field(user, "Answer"))
        return [text] * n
    if task == "facts":
        hyp = prompts.field(user, "Hypothesis")
        return ["\n".join(make_facts(hyp, i, temperature)) for i in range(n)]
    if task == "entailment":
        body = user.split("Premises:", 1)[-1].split("\nHypothesis:", 1)[0]
        premises = [re.sub(r"^\s*\d+\.\s*", "", ln).strip() for ln in body.splitlines() if ln.strip()]
        verdict = "yes" if logic.entails(premises, prompts.field(user, "Hypothesis")) else "no"
        return [verdict] * n
    return ["I can only help with the hypothesis, facts and entailment tasks."] * n
