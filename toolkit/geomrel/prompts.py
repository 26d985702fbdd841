"""Prompting a model on items: plain (anchor prompt), cot (step-by-step cue), geocot (two stages).

GeoCoT stage 1 breaks the construction into points, lines, angles, shapes and every stated or
directly implied relation; stage 2 gets those facts with the question, restates the target,
keeps the facts about the queried elements, reasons backward and ends with "Answer: X".
"""

from __future__ import annotations

from toolkit.core.errors import InputError
from toolkit.geomrel.answers import parse_anchor, parse_robust

PROMPTS = ("plain", "cot", "geocot")
END = "Give me your choice at the end of your response."
STAGE1 = ("Break the following geometry description into its parts. List every point, line, angle and shape, "
          "then every relation that is stated or directly implied (parallel, perpendicular, on a line, midpoint, "
          "equal lengths, right angles). Do not answer the question.\n\n{body}")
STAGE2 = ("Facts extracted from the description:\n{facts}\n\nQuestion:\n{question}\n\nFirst restate what is asked. "
          "Keep only the facts about the elements in the question, reason backward from the target to those facts, "
          "and end with a line 'Answer: X' where X is the letter of your choice.")


def _user(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def ask_item(llm, item: dict, prompt: str, parser: str, max_tokens: int = 512) -> dict:
    """Send one item; returns the geomrel.pred body (raw reply, stage-1 facts, letter, parse_ok)."""
    if prompt not in PROMPTS:
        raise InputError(f"--prompt {prompt}: expected one of {', '.join(PROMPTS)}")
    question = item["question"]
    stage1 = None
    if prompt == "geocot":
        body = question.partition("Answer choices:")[0].strip()
        stage1 = llm.complete(_user(STAGE1.format(body=body)), n=1, temperature=0.0, max_tokens=max_tokens).text
        text = STAGE2.format(facts=stage1, question=question)
    elif prompt == "cot":
        text = f"{question}\nLet's think step by step. {END}"
    else:
        text = f"{question}\n{END}"
    raw = llm.complete(_user(text), n=1, temperature=0.0, max_tokens=max_tokens).text
    letter = parse_anchor(raw) if parser == "anchor" else parse_robust(raw, item["options"])
    return {"id": item["id"], "raw": raw, "stage1": stage1, "letter": letter, "parse_ok": letter is not None,
            "prompt": prompt, "parser": parser}
