"""Prompts, lowercase, one line per item: `document : TITLE : TEXT`, `question : Q`, `answer : A`.

IterDRAG chains use the Self-Ask markers `follow up :`, `intermediate answer :` and
`so the final answer is :`. Demonstrations come first, each with its own documents; the test
question's documents follow with the best-ranked one last, nearest the question.
"""

from __future__ import annotations

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
