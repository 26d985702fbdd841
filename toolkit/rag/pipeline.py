"""Glue the commands share: reading questions and demonstrations, building demonstrations, a run."""

from __future__ import annotations

from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, read_records
from toolkit.rag import prompts
from toolkit.rag.methods import Config, Runner, merge


def read_questions(path: str | Path, *, skip_bad: bool = False, bad: BadLines | None = None) -> list[dict]:
    out, seen = [], set()
    for r in read_records(path, required=("id", "question", "answers"), skip_bad=skip_bad, bad=bad):
        if not isinstance(r["answers"], list) or not r["answers"]:
            msg = f"{path}: question {r['id']}: field 'answers' must be a non-empty list"
            if skip_bad and bad is not None:
                bad.add(msg)
                continue
            raise InputError(msg)
        if r["id"] in seen:
            raise InputError(f"{path}: question {r['id']}: field 'id' duplicates an earlier question")
        seen.add(r["id"])
        out.append(r)
    if not out:
        raise InputError(f"{path}: no questions")
    return out


def read_demos(path: str | Path | None) -> list[dict]:
    if path is None:
        return []
    return list(read_records(path, types=["rag.demo"], required=("question", "answer")))


def gold_demo(q: dict) -> dict:
    """A demonstration from a question's gold decomposition (a direct answer when it has none)."""
    from toolkit.core.records import make_record

    steps = [s for s in q.get("decomposition") or [] if s.get("question") and s.get("answer")]
    chain = []
    for s in steps:
        chain += [f"{prompts.FOLLOW} {s['question']}", f"{prompts.INTERMEDIATE} {s['answer']}"]
    if chain:
        chain.append(f"{prompts.FINAL} {q['answers'][0]}")
    return make_record("rag.demo", 1, id=q["id"], question=q["question"], answer=q["answers"][0],
                       hops=q.get("hops", len(steps) or 1), chain=chain, sub_questions=[s["question"] for s in steps],
                       source="gold")


def prompted_demos(llm, index, questions: list[dict], k: int, n: int) -> list[dict]:
    """Demonstrations the LLM writes itself with IterDRAG, kept only when its final answer is right."""
    from toolkit.core.records import make_record
    from toolkit.rag.metrics import accuracy

    out = []
    answers = Runner(llm, index).run(questions, Config("iterdrag", k, 0, n))
    for q, a in zip(questions, answers, strict=True):
        if not accuracy(a["prediction"], q["answers"]) or a["format_errors"]:
            continue
        chain = [t["output"] for t in a["trace"] if t["call"] != "final (forced)"]
        if not chain or not chain[-1].startswith(prompts.FINAL):
            chain.append(f"{prompts.FINAL} {a['prediction']}")
        subs = [line[len(prompts.FOLLOW):].strip() for line in chain if line.startswith(prompts.FOLLOW)]
        out.append(make_record("rag.demo", 1, id=q["id"], question=q["question"], answer=a["prediction"],
                               hops=q.get("hops", len(subs)), chain=chain, sub_questions=subs, source="prompted"))
    return out


__all__ = ["read_questions", "read_demos", "gold_demo", "prompted_demos", "merge"]
