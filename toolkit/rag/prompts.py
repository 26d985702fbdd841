"""Prompts, lowercase, one line per item: `document : TITLE : TEXT`, `question : Q`, `answer : A`.

IterDRAG chains use the Self-Ask markers `follow up :`, `intermediate answer :` and
`so the final answer is :`. Demonstrations come first, each with its own documents; the test
question's documents follow with the best-ranked one last, nearest the question.
`mark_query_terms` (optional, off by default) writes MARK before every document word that the question the
documents serve also holds, so a reader finds the asked entity's document by one lookup of a fixed token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FOLLOW = "follow up :"
INTERMEDIATE = "intermediate answer :"
FINAL = "so the final answer is :"
ANSWER = "answer :"
INSTRUCTION = {
    "zs": "answer the question .",
    "ms": "answer the question like the examples .",
    "rag": "answer the question using the documents .",
    "drag": "answer the question using the documents .",
    "iterdrag": "answer the question using the documents . ask a follow up question when needed .",
}
MARK = "*"  # the query-term mark (a word of its own for the word tokenizer)
# every word the prompt scaffolding uses (the reader's vocabulary takes them)
PROMPT_WORDS = ("user: assistant: system: document : question answer follow up intermediate so the final is "
                "? . , when needed like examples using documents ask a what").split()


@dataclass
class Demo:
    """One demonstration: its question, its own retrieved documents, the answer and (IterDRAG) the chain."""

    question: str
    answer: str
    docs: list[dict] = field(default_factory=list)  # per hop for chains: documents in the order they came
    chain: list[str] = field(default_factory=list)  # chain lines, ending with the final line


def doc_lines(docs: list[dict]) -> list[str]:
    """Documents ranked best first, written best last (nearest the question)."""
    return [f"document : {d['title']} : {d['text']}" for d in reversed(docs)]


def demo_block(demo: Demo, method: str) -> list[str]:
    lines = doc_lines(demo.docs) if method in ("drag", "iterdrag") else []
    lines.append(f"question : {demo.question}")
    if method == "iterdrag" and demo.chain:
        lines += demo.chain
    else:
        lines.append(f"{ANSWER} {demo.answer}")
    return lines


def build_prompt(method: str, question: str, docs: list[dict], demos: list[Demo], chain: list[str] | None = None,
                 force_final: bool = False) -> str:
    """The user message of one call; the model answers with one line."""
    lines = [INSTRUCTION[method]]
    for demo in demos:
        lines += demo_block(demo, method)
    lines += doc_lines(docs)
    lines.append(f"question : {question}")
    lines += chain or []
    if force_final:
        lines.append(FINAL)
    return "\n".join(lines)


def messages(prompt: str) -> list[dict]:
    return [{"role": "user", "content": prompt}]


def parse_line(text: str) -> tuple[str, str]:
    """(kind, content) of one generated line: follow, intermediate, final, answer or unknown."""
    line = text.strip().splitlines()[0].strip() if text.strip() else ""
    low = line.lower()
    for kind, marker in (("follow", FOLLOW), ("intermediate", INTERMEDIATE), ("final", FINAL), ("answer", ANSWER)):
        if low.startswith(marker):
            return kind, line[len(marker):].strip()
        bare = marker.replace(" :", ":")
        if low.startswith(bare):
            return kind, line[len(bare):].strip()
    return "unknown", line


def _content_words(question: str) -> set[str]:
    """The words BM25 would search for: lowercase, two or more word characters, not a stop word."""
    from toolkit.rag.retrieve import STOPWORDS, TOKEN_PATTERN

    return {w for w in re.findall(TOKEN_PATTERN, question.lower()) if w not in STOPWORDS}


def mark_query_terms(prompt: str) -> str:
    """`prompt` with MARK before each document word found in the question those documents serve: the next
    `question :` line, or the newest `follow up :` line of that block's chain. Computed from the prompt
    alone (the same text at training and at run time), never from an answer."""
    lines = prompt.split("\n")
    out, pending = [], []

    def flush(question: str) -> None:
        terms = _content_words(question)
        for line in pending:
            head, title, text = line.split(" : ", 2)
            out.append(" : ".join([head] + [" ".join(f"{MARK} {w}" if w in terms else w for w in part.split())
                                            for part in (title, text)]))
        pending.clear()

    for i, line in enumerate(lines):
        if line.startswith("document : ") and line.count(" : ") >= 2:
            pending.append(line)
            continue
        asked = ""  # documents with no question after them stay unmarked
        if line.startswith("question : "):
            asked = line[len("question : "):]
            for later in lines[i + 1:]:
                if later.startswith("document : ") or later.startswith("question : "):
                    break
                if later.startswith(FOLLOW):
                    asked = later[len(FOLLOW):]
        flush(asked)
        out.append(line)
    flush("")
    return "\n".join(out)
