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


def final_prompt(question: str, prompt: str, facts: str | None = None) -> str:
    """The answer-producing request of each prompt style (stage 2 for geocot)."""
    if prompt == "geocot":
        return STAGE2.format(facts=facts, question=question)
    if prompt == "cot":
        return f"{question}\nLet's think step by step. {END}"
    return f"{question}\n{END}"


def shot_trace(item: dict, derived: str | None, domain: str | None) -> str:
    """A worked answer for a few-shot example, written from the text-only solver's result (not from `answer`)."""
    from toolkit.geomrel import dsl

    if derived is None or domain is None:
        return ""
    text = dsl.option_text(domain, derived)
    if text not in item["options"]:
        return ""
    letter = "ABCDE"[item["options"].index(text)]
    ask = item["question"].partition("Answer choices:")[0].strip().rsplit(". ", 1)[-1]
    if derived == "cannot":
        why = "The stated facts leave a free choice that changes this relation: two admissible figures differ."
    else:
        why = f"Every figure satisfying the stated facts gives the same relation: {text.lower()}."
    return (f"We are asked: {ask}\nKeep only the facts about the points in the question and reason back from "
            f"them. {why}\nAnswer: {letter}")


def shot_messages(shots: list[tuple[dict, str]], prompt: str) -> list[dict]:
    """user/assistant turns for (item, trace) examples; geocot examples skip stage 1 (facts = the description)."""
    turns = []
    for item, trace in shots:
        body = item["question"].partition("Answer choices:")[0].strip()
        turns += [{"role": "user", "content": final_prompt(item["question"], prompt, facts=body)},
                  {"role": "assistant", "content": trace}]
    return turns


def ask_item(llm, item: dict, prompt: str, parser: str, max_tokens: int = 512,
             shots: list[tuple[dict, str]] = ()) -> dict:
    """Send one item; returns the geomrel.pred body (raw reply, stage-1 facts, letter, parse_ok). A backend
    failure after its retries is recorded in `error` (letter None), so `--resume` can ask again; an unreachable
    backend ends the run instead (no later item could be answered)."""
    from toolkit.core.errors import BackendUnreachable, RuntimeFailure

    if prompt not in PROMPTS:
        raise InputError(f"--prompt {prompt}: expected one of {', '.join(PROMPTS)}")
    question = item["question"]
    stage1 = None
    base = {"id": item["id"], "prompt": prompt, "parser": parser, "shots": len(shots)}
    try:
        if prompt == "geocot":
            body = question.partition("Answer choices:")[0].strip()
            stage1 = llm.complete(_user(STAGE1.format(body=body)), n=1, temperature=0.0, max_tokens=max_tokens).text
        messages = [*shot_messages(list(shots), prompt), *_user(final_prompt(question, prompt, stage1))]
        raw = llm.complete(messages, n=1, temperature=0.0, max_tokens=max_tokens).text
    except BackendUnreachable:
        raise
    except RuntimeFailure as exc:
        return {**base, "raw": None, "stage1": stage1, "letter": None, "parse_ok": False, "error": str(exc)}
    letter = parse_anchor(raw) if parser == "anchor" else parse_robust(raw, item["options"])
    return {**base, "raw": raw, "stage1": stage1, "letter": letter, "parse_ok": letter is not None}
