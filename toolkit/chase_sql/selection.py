"""Candidate selection: clusters by execution result, the pairwise tournament, self-consistency.

Tournament (the paper's selection algorithm): every pair (i < j) of candidates is compared;
if both give the same result, candidate i gets +1; otherwise the binary selector is asked
with the pair in both orders (A=i,B=j and A=j,B=i) and each answer gives +1 to its pick; a reply
that names neither is a tie and gives no point.
The candidate with the highest score wins (ties: the earlier candidate).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolkit.chase_sql.executor import ExecResult
from toolkit.chase_sql.parsing import parse_choice
from toolkit.chase_sql.prompts import select_prompt


def _norm(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def result_key(result: ExecResult) -> Any:
    """Candidates with the same key share a cluster: equal sets of rows (as BIRD EX compares them)."""
    if result.error is not None:
        return None
    return frozenset(tuple(_norm(v) for v in row) for row in result.rows)


def result_text(result: ExecResult, max_rows: int = 5) -> str:
    if result.error is not None:
        return f"error: {result.error}"
    if not result.rows:
        return "no rows"
    shown = "; ".join(", ".join(repr(v) for v in row) for row in result.rows[:max_rows])
    more = f" ... ({len(result.rows)} rows)" if len(result.rows) > max_rows else ""
    return f"columns ({', '.join(result.columns)}): {shown}{more}"


def clusters(results: Sequence[ExecResult]) -> list[int]:
    """Cluster id per candidate (first-appearance order); failed candidates get -1."""
    ids: dict[Any, int] = {}
    out = []
    for r in results:
        key = result_key(r)
        if key is None:
            out.append(-1)
            continue
        out.append(ids.setdefault(key, len(ids)))
    return out


def self_consistency(cluster_ids: Sequence[int]) -> int:
    """Index of the first member of the largest cluster (ties: the cluster seen first); 0 if all failed."""
    sizes: dict[int, int] = {}
    for c in cluster_ids:
        if c >= 0:
            sizes[c] = sizes.get(c, 0) + 1
    if not sizes:
        return 0
    best = max(sizes, key=lambda c: (sizes[c], -c))
    return list(cluster_ids).index(best)


TIE = "tie"  # the selector's reply named neither candidate: no point to either (no position bias)
Choose = Callable[[int, int], str]  # (index A, index B) -> "A", "B" or TIE


@dataclass
class Tournament:
    scores: list[float]
    winner: int
    comparisons: int
    votes: list[dict] = field(default_factory=list)


def tournament(cluster_ids: Sequence[int], choose: Choose, both_orders: bool = True) -> Tournament:
    """Pairwise tournament over the candidates that executed; failed ones score nothing."""
    n = len(cluster_ids)
    live = [i for i in range(n) if cluster_ids[i] >= 0]
    scores = [0.0] * n
    votes, asked = [], 0
    if len(live) <= 1:
        return Tournament(scores, live[0] if live else 0, 0, votes)
    for x, i in enumerate(live):
        for j in live[x + 1:]:
            if cluster_ids[i] == cluster_ids[j]:
                scores[i] += 1
                continue
            orders = [(i, j), (j, i)] if both_orders else [(i, j)]
            for a, b in orders:
                pick = choose(a, b)
                asked += 1
                if pick in ("A", "B"):
                    scores[a if pick == "A" else b] += 1
                votes.append({"a": a, "b": b, "pick": pick})
    best = max(live, key=lambda k: (scores[k], -k))
    return Tournament(scores, best, asked, votes)


class LLMSelector:
    """The binary selector as a prompted LLM. Answers are cached by the pair's SQL text."""

    def __init__(self, llm, max_tokens: int = 8) -> None:
        self.llm = llm
        self.max_tokens = max_tokens
        self._cache: dict[tuple[str, str, str], str] = {}

    def choose(self, schema: str, question: str, evidence: str, sql_a: str, res_a: ExecResult, sql_b: str,
               res_b: ExecResult) -> str:
        key = (question, sql_a, sql_b)
        if key not in self._cache:
            msgs = select_prompt(schema, question, evidence, sql_a, result_text(res_a), sql_b, result_text(res_b))
            text = self.llm.complete(msgs, n=1, temperature=0.0, max_tokens=self.max_tokens).text
            self._cache[key] = parse_choice(text) or TIE
        return self._cache[key]
