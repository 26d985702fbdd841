"""A small controlled-English entailment checker: the deterministic stand-in for an NLI verifier.

It understands three sentence shapes, which is all the shipped elementary-science data uses:

* taxonomy   "A trout is a kind of fish." / "Trout are a type of fish."   -> edge trout -> fish
* material   "A nail is made of iron."                                    -> edge nail -> iron
* property   "A fish breathes with gills."                                -> (fish, {breath, gill})

Premises entail a hypothesis when the hypothesis subject reaches, through taxonomy/material
edges, a node that carries a matching property (or, for a taxonomy hypothesis, reaches the
class itself). Properties match by content-word overlap (Jaccard >= 0.6 after a crude stemmer
and a few synonyms) with negation respected, so paraphrases such as "Fishes use gills to
breathe." count as the same property. This is a rule/overlap-based check, not a neural model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ARTICLES = {"a", "an", "the"}
STOP = {"a", "an", "the", "with", "its", "their", "to", "of", "by", "in", "on", "and", "for", "use", "uses",
        "using", "always", "usually", "generally", "general", "all", "every", "own", "that", "which", "it",
        "they", "be", "from", "when", "some", "most", "do", "out", "up", "can"}
SYNONYMS = {"babies": "young", "baby": "young", "offspring": "young", "has": "have", "does": "do",
            "is": "be", "are": "be", "mice": "mouse", "fishes": "fish", "cannot": "not", "never": "not",
            "no": "not", "doesn't": "not", "don't": "not", "molten": "melted", "forms": "form", "formed": "form",
            "pulled": "attracted", "toward": "to"}
VERB_WORDS = {"is", "are", "has", "have", "breathe", "breathes", "need", "needs", "feed", "feeds", "lay", "lays",
              "make", "makes", "produce", "produces", "orbit", "orbits", "conduct", "conducts", "form", "forms",
              "block", "blocks", "spread", "spreads", "take", "takes", "live", "lives", "start", "starts", "begin",
              "begins", "can", "do", "does", "will", "must", "release", "releases", "attract", "attracts", "grow",
              "grows", "give", "gives", "keep", "keeps", "shine", "shines", "reflect", "reflects", "contain",
              "contains", "use", "uses", "eat", "eats", "move", "moves", "fly", "flies", "swim", "swims",
              "store", "stores", "melt", "melts", "cannot", "lose", "loses", "carry", "carries", "turn", "turns"}
ISA_RE = re.compile(r"^(?P<s>.+?)\s+(?:is|are)\s+(?:a\s+|an\s+)?(?:kind|type|sort|form)s?\s+of\s+(?P<t>.+)$")
MADE_RE = re.compile(r"^(?P<s>.+?)\s+(?:is|are)\s+made\s+(?:of|from)\s+(?P<t>.+)$")
WORD_RE = re.compile(r"[a-z][a-z'\-]*")
MATCH_THRESHOLD = 0.6


def _plural(word: str) -> str:
    """Singular of a noun (only the regular English endings the data uses)."""
    word = SYNONYMS.get(word, word)
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def stem(word: str) -> str:
    """A crude stemmer for predicate words: synonyms, plural, -ing/-ed, final e."""
    word = SYNONYMS.get(word, word)
    if word in STOP or word == "not":
        return word
    for suffix in ("ing", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    word = _plural(word)
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    return WORD_RE.findall(text.lower().replace("-", " "))


def norm_name(text: str) -> str:
    """Normalize a noun phrase: lower case, articles dropped, each word singular."""
    toks = [t for t in words(text) if t not in ARTICLES]
    return " ".join(_plural(t) for t in toks)


def content(tokens: list[str]) -> frozenset[str]:
    out = {stem(t) for t in tokens}
    return frozenset(t for t in out if t not in STOP)


@dataclass(frozen=True)
class Parsed:
    kind: str  # "isa" | "made" | "prop"
    subject: str
    target: str = ""
    predicate: frozenset[str] = frozenset()


def parse(sentence: str) -> Parsed | None:
    """Parse one sentence into a taxonomy/material edge or a property; None if it has neither shape."""
    text = " ".join(words(sentence))
    if not text:
        return None
    for kind, rx in (("isa", ISA_RE), ("made", MADE_RE)):
        m = rx.match(text)
        if m:
            return Parsed(kind, norm_name(m["s"]), norm_name(m["t"]))
    toks = text.split()
    for i in range(1, len(toks)):
        if toks[i] in VERB_WORDS:
            subject = norm_name(" ".join(toks[:i]))
            pred = content(toks[i:])
            if subject and pred:
                return Parsed("prop", subject, predicate=pred)
            return None
    return None


def predicates_match(a: frozenset[str], b: frozenset[str]) -> bool:
    if ("not" in a) != ("not" in b):
        return False
    if not a or not b:
        return False
    return len(a & b) / len(a | b) >= MATCH_THRESHOLD


def entails(premises: list[str], hypothesis: str) -> bool:
    """True when the premises (together) entail the hypothesis under the rules above."""
    hyp = parse(hypothesis)
    if hyp is None:
        return False
    edges: dict[str, set[str]] = {}
    props: list[Parsed] = []
    for sentence in premises:
        p = parse(sentence)
        if p is None:
            continue
        if p.kind == "prop":
            props.append(p)
        else:
            edges.setdefault(p.subject, set()).add(p.target)
    reach = {hyp.subject}
    frontier = [hyp.subject]
    while frontier:
        node = frontier.pop()
        for nxt in sorted(edges.get(node, ())):
            if nxt not in reach:
                reach.add(nxt)
                frontier.append(nxt)
    if hyp.kind in ("isa", "made"):
        return hyp.target in reach and hyp.target != hyp.subject
    return any(p.subject in reach and predicates_match(p.predicate, hyp.predicate) for p in props)
