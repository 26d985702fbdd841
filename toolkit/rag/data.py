"""Dataset loaders -> `rag.question` {id, question, answers, hops, decomposition, gold_docs} and
`rag.doc` {id, title, text}.

Formats: HotpotQA and 2WikiMultihopQA (JSON array or JSONL; `context` [[title, sentences]],
`supporting_facts` [[title, sentence]]), MuSiQue (JSONL; `paragraphs`, `question_decomposition` with
`#1`-style references substituted by earlier answers and `ENTITY >> relation` steps rewritten as questions,
`answer_aliases`), Bamboogle (CSV or JSON(L)
with Question/Answer; bring a corpus), our own JSONL. Corpora: JSONL {id, title, text} or DPR TSV
(id, text, title with a header line). Gold paragraphs become `gold_docs` (for recall@k).
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, json_items

FORMATS = ("hotpotqa", "2wiki", "musique", "bamboogle", "jsonl")
REQUIRED = {
    "hotpotqa": ("question", "answer", "context", "supporting_facts"),
    "2wiki": ("question", "answer", "context", "supporting_facts"),
    "musique": ("question", "answer", "paragraphs", "question_decomposition"),
    "bamboogle": ("Question", "Answer"),
    "jsonl": ("question", "answers"),
}


def doc_id(title: str, text: str) -> str:
    return "d" + hashlib.sha256(f"{title}\n{text}".encode()).hexdigest()[:16]


class Corpus:
    """Documents collected from question contexts, identical (title, text) pairs kept once."""

    def __init__(self) -> None:
        self.docs: dict[str, dict] = {}

    def add(self, title: str, text: str) -> str:
        did = doc_id(title, text)
        self.docs.setdefault(did, {"id": did, "title": title, "text": text})
        return did


def _items(path: Path) -> Iterator[tuple[str, object]]:
    """(location, parsed item) for a JSON array file or a JSONL file."""
    for where, _, item in json_items(path):
        yield where, item


def _bamboogle_items(path: Path) -> Iterator[tuple[str, object]]:
    if path.suffix.lower() != ".csv":
        yield from _items(path)
        return
    if not path.exists():
        raise InputError(f"{path}: no such file")
    with path.open(encoding="utf-8", newline="") as fh:
        for lineno, row in enumerate(csv.DictReader(fh), start=2):
            yield f"{path}:{lineno}", row


def _check(item: object, where: str, fmt: str) -> dict:
    if isinstance(item, InputError):
        raise item
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(item).__name__}")
    for f in REQUIRED[fmt]:
        if f not in item:
            raise InputError(f"{where}: field '{f}' missing (format {fmt})")
    return item


def _text(value: object, where: str, fname: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: field '{fname}' must be a non-empty string")
    return value.strip()


def _hotpot(item: dict, where: str, corpus: Corpus, n: int) -> dict:
    ids, gold = {}, []
    try:
        for title, sentences in item["context"]:
            ids[title] = corpus.add(title, " ".join(s.strip() for s in sentences).strip())
        for title, _ in item["supporting_facts"]:
            if title in ids and ids[title] not in gold:
                gold.append(ids[title])
    except (TypeError, ValueError):
        raise InputError(f"{where}: field 'context' or 'supporting_facts' malformed "
                         "(expected [[title, sentences]] and [[title, index]])") from None
    return {"id": str(item.get("_id", item.get("id", f"q{n}"))), "question": _text(item["question"], where, "question"),
            "answers": [_text(item["answer"], where, "answer")], "hops": max(1, len(gold)), "decomposition": [],
            "gold_docs": gold}


_PREPOSITIONS = {"by", "in", "at", "of", "on", "to", "for", "from", "with", "into"}
_VERB_HEADS = {"part", "member", "made", "born", "written", "built", "owned", "operated", "followed", "replaced"}


def follow_up(text: str) -> str:
    """A MuSiQue sub-question as a follow-up question. Its single-hop steps are written `ENTITY >> relation`
    with a Wikidata property label ("Xbox >> manufacturer", "#1 >> place of birth"): a noun relation becomes
    "What is the manufacturer of Xbox?"; a relation that reads as a verb phrase (it ends in a preposition or
    starts with a participle: "founded by", "part of", "located in the administrative territorial entity")
    becomes "What is Alpha founded by?". Questions already written out pass unchanged."""
    if ">>" not in text:
        return text
    subject, relation = (x.strip() for x in text.split(">>", 1))
    if not subject or not relation:
        return text
    words = relation.split()
    head = words[0].lower()
    if words[-1].lower() in _PREPOSITIONS or head in _VERB_HEADS or (head.endswith("ed") and len(words) > 1):
        return f"What is {subject} {relation}?"
    return f"What is the {relation} of {subject}?"


def _musique(item: dict, where: str, corpus: Corpus, n: int) -> dict:
    try:
        by_idx = {p["idx"]: corpus.add(p["title"], p["paragraph_text"]) for p in item["paragraphs"]}
        gold = [by_idx[p["idx"]] for p in item["paragraphs"] if p.get("is_supporting")]
        steps, answers = [], []
        for step in item["question_decomposition"]:
            q = follow_up(re.sub(r"#(\d+)", lambda m: answers[int(m.group(1)) - 1] if int(m.group(1)) <= len(answers)
                                 else m.group(0), step["question"]))
            answers.append(step["answer"])
            sup = step.get("paragraph_support_idx")
            steps.append({"question": q, "answer": step["answer"], "doc": by_idx.get(sup)})
    except (KeyError, TypeError) as exc:
        raise InputError(f"{where}: field 'paragraphs' or 'question_decomposition' malformed (missing {exc})") from None
    aliases = [a for a in item.get("answer_aliases", []) if isinstance(a, str) and a.strip()]
    return {"id": str(item.get("id", f"q{n}")), "question": _text(item["question"], where, "question"),
            "answers": [_text(item["answer"], where, "answer"), *aliases], "hops": len(steps),
            "decomposition": steps, "gold_docs": gold}


def _bamboogle(item: dict, where: str, corpus: Corpus, n: int) -> dict:
    return {"id": str(item.get("id", f"bamboogle-{n}")), "question": _text(item["Question"], where, "Question"),
            "answers": [_text(item["Answer"], where, "Answer")], "hops": 2, "decomposition": [], "gold_docs": []}


def _own(item: dict, where: str, corpus: Corpus, n: int) -> dict:
    answers = item["answers"]
    if isinstance(answers, str):
        answers = [answers]
    if not isinstance(answers, list) or not answers or not all(isinstance(a, str) and a.strip() for a in answers):
        raise InputError(f"{where}: field 'answers' must be a non-empty list of strings")
    return {"id": str(item.get("id", f"q{n}")), "question": _text(item["question"], where, "question"),
            "answers": answers, "hops": int(item.get("hops", 1)), "decomposition": item.get("decomposition", []),
            "gold_docs": item.get("gold_docs", [])}


CONVERT = {"hotpotqa": _hotpot, "2wiki": _hotpot, "musique": _musique, "bamboogle": _bamboogle, "jsonl": _own}


def load_questions(path: str | Path, fmt: str, *, skip_bad: bool = False,
                   bad: BadLines | None = None) -> tuple[list[dict], list[dict]]:
    """(questions, documents from their contexts) of a dataset file in `fmt`."""
    if fmt not in FORMATS:
        raise InputError(f"--format {fmt}: expected one of {', '.join(FORMATS)}")
    path = Path(path)
    bad = bad if bad is not None else BadLines()
    corpus, out, seen = Corpus(), [], set()
    items = _bamboogle_items(path) if fmt == "bamboogle" else _items(path)
    for n, (where, item) in enumerate(items, start=1):
        try:
            q = CONVERT[fmt](_check(item, where, fmt), where, corpus, n)
            if q["id"] in seen:
                raise InputError(f"{where}: field 'id' duplicates an earlier question ({q['id']})")
        except InputError as exc:
            if not skip_bad:
                raise
            bad.add(str(exc))
            continue
        seen.add(q["id"])
        out.append(q)
    if not out:
        raise InputError(f"{path}: no questions")
    return out, list(corpus.docs.values())


def load_corpus(path: str | Path, *, skip_bad: bool = False, bad: BadLines | None = None) -> list[dict]:
    """A corpus: JSONL {id, title, text} or a DPR TSV (id, text, title; header line). Ids unique, texts non-empty."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file")
    bad = bad if bad is not None else BadLines()
    docs, seen = [], set()
    if path.suffix.lower() == ".tsv":
        rows = _dpr_rows(path)
    else:
        rows = ((f"{path}:{i}", x) for i, x in enumerate(_jsonl_or_error(path), start=1))
    for where, row in rows:
        try:
            if isinstance(row, InputError):
                raise row
            for f in ("id", "text"):
                if f not in row:
                    raise InputError(f"{where}: field '{f}' missing (corpus)")
            did, text = str(row["id"]), str(row["text"]).strip()
            if not text:
                raise InputError(f"{where}: field 'text' is empty (document {did})")
            if did in seen:
                raise InputError(f"{where}: field 'id' duplicates document {did}")
        except InputError as exc:
            if not skip_bad:
                raise
            bad.add(str(exc))
            continue
        seen.add(did)
        docs.append({"id": did, "title": str(row.get("title", "")).strip(), "text": text})
    if not docs:
        raise InputError(f"{path}: no documents")
    return docs


def _jsonl_or_error(path: Path) -> Iterator[object]:
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            yield InputError(f"{path}:{lineno}: empty line")
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            yield InputError(f"{path}:{lineno}: malformed JSON: {exc.msg}")
            continue
        yield obj if isinstance(obj, dict) else InputError(f"{path}:{lineno}: expected a JSON object")


def _dpr_rows(path: Path) -> Iterator[tuple[str, object]]:
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t")
        header = next(reader, None)
        if not header or [h.strip().lower() for h in header[:3]] != ["id", "text", "title"]:
            raise InputError(f"{path}:1: expected the DPR header 'id<TAB>text<TAB>title'")
        for lineno, row in enumerate(reader, start=2):
            if len(row) < 3:
                where = f"{path}:{lineno}"
                yield where, InputError(f"{where}: field 'title' missing (DPR TSV: id, text, title)")
                continue
            yield f"{path}:{lineno}", {"id": row[0], "text": row[1], "title": row[2]}
