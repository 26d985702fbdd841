"""Prompts sent to the LLM and the parsers of its answers.

Three tasks, each marked by the first line of its system message so that any backend (a real
chat model or the deterministic stand-in) can tell them apart:

* hypothesis: rewrite a question and one answer option as one declarative sentence;
* facts: write general facts, one per line, that together entail the hypothesis (sampled n times
  for several candidate proofs, as the paper collects several proofs per training question);
* entailment: LLM-as-verifier, "yes" when the numbered premises together entail the hypothesis.
"""

from __future__ import annotations

import re

HYPOTHESIS_SYSTEM = (
    "Task: hypothesis.\nRewrite the multiple-choice question together with the given answer option as one short "
    "declarative sentence that is true exactly when the option is correct. Reply with that sentence only."
)
FACTS_SYSTEM = (
    "Task: facts.\nYou are a science teacher. Write the general, reusable facts you believe, one per line, that "
    "together logically entail the hypothesis. Prefer general statements about kinds of things over statements "
    "about the specific case. Reply with the facts only, one per line, no numbering."
)
ENTAIL_SYSTEM = (
    "Task: entailment.\nDecide whether the premises, taken together, entail the hypothesis (a reader who accepts "
    "every premise must accept the hypothesis). Reply with exactly one word: yes or no."
)


def hypothesis_messages(question: str, option: str) -> list[dict]:
    return [{"role": "system", "content": HYPOTHESIS_SYSTEM},
            {"role": "user", "content": f"Question: {question}\nAnswer: {option}\nHypothesis:"}]


def facts_messages(question: str, option: str, hypothesis: str) -> list[dict]:
    return [{"role": "system", "content": FACTS_SYSTEM},
            {"role": "user", "content": f"Question: {question}\nAnswer: {option}\nHypothesis: {hypothesis}\nFacts:"}]


def entail_messages(premises: list[str], hypothesis: str) -> list[dict]:
    numbered = "\n".join(f"{i}. {p}" for i, p in enumerate(premises, start=1))
    return [{"role": "system", "content": ENTAIL_SYSTEM},
            {"role": "user", "content": f"Premises:\n{numbered}\nHypothesis: {hypothesis}\nAnswer (yes or no):"}]


_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s*")


def parse_hypothesis(text: str) -> str:
    line = next((ln.strip() for ln in text.strip().splitlines() if ln.strip()), "")
    line = re.sub(r"^hypothesis:\s*", "", line, flags=re.I).strip().strip('"')
    return line


def parse_facts(text: str) -> list[str]:
    """One fact per non-empty line; bullets/numbers stripped; duplicates dropped in order."""
    out: list[str] = []
    for line in text.splitlines():
        fact = _BULLET.sub("", line).strip().strip('"')
        if not fact or fact.lower().startswith(("facts:", "none")):
            continue
        if not fact.endswith((".", "!", "?")):
            fact += "."
        if fact not in out:
            out.append(fact)
    return out


def parse_yes_no(text: str) -> bool:
    word = re.findall(r"[a-z]+", text.lower())
    return bool(word) and word[0] in ("yes", "true", "entailed", "entails")


def task_of(messages: list[dict]) -> str:
    """The task named on the first line of the system message ('' if none)."""
    for m in messages:
        if m.get("role") == "system" and isinstance(m.get("content"), str):
            first = m["content"].splitlines()[0].strip().lower()
            if first.startswith("task:"):
                return first[5:].strip(" .")
    return ""


def field(text: str, name: str) -> str:
    m = re.search(rf"^{name}:[ \t]*(.*)$", text, flags=re.M)
    return m.group(1).strip() if m else ""
