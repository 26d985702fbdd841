"""The rule planner: a deterministic stand-in that writes manipulation plans from the question text alone.

`plan` is an LLM backend function (`--llm py:toolkit.cogcom.planner:plan`). Given a synthesis prompt it
returns a `Step k: (...)` plan; in a solve conversation it writes one inline call per turn and, once the
runtime has returned the results, "So the answer is X." It never sees an answer, a box or the image:
its output is a pipeline demo, not a model result.

Zooms follow the official grammar, `CROP_AND_ZOOMIN(box, 2)` (the official runtime always enlarges x2);
`zoom="auto"` (backend `py:toolkit.cogcom.planner:plan_auto`, `solve --zoom auto`) is our option that fills
the perceiver's budget, x2..x4, and is not in the official grammar.
"""

from __future__ import annotations

import re

from toolkit.core.errors import InputError
from toolkit.core.llm.base import message_text

READ = re.compile(r"what does the (\w+) sign say", re.I)
COUNT = re.compile(r"how many (\w+?)s? are in the (\w+) tray", re.I)
COMPUTE = re.compile(r"total price of the (\w+) tag and the (\w+) tag", re.I)
QUESTION = re.compile(r"Question:\s*(.+?)(?:\n|$)")


ZOOMS = ("2", "auto")


def steps_for(question: str, zoom: str = "2") -> list[tuple[str, str]]:
    """(call, description) pairs for a question, or [] when no rule applies; `zoom` is the CROP_AND_ZOOMIN factor."""
    if zoom not in ZOOMS:
        raise InputError(f"zoom {zoom!r}: expected one of {', '.join(ZOOMS)}")
    if m := READ.search(question):
        c = m.group(1)
        return [(f"GROUNDING_1({c} sign)->bbx_1", f"Locate the {c} sign in the image and return its box `bbx_1`."),
                (f"CROP_AND_ZOOMIN_1(`bbx_1`, {zoom})->img_1",
                 "Crop the sign along `bbx_1` and zoom in to get `img_1`."),
                ("OCR_1(`img_1`)->txt_1", "Read the text of the sign in `img_1` as `txt_1`."),
                ("None", "The sign says `txt_1`, so the answer is `txt_1`.")]
    if m := COUNT.search(question):
        shape, c = m.group(1).lower(), m.group(2)
        return [(f"GROUNDING_1({c} tray)->bbx_1", f"Locate the {c} tray and return its box `bbx_1`."),
                (f"CROP_AND_ZOOMIN_1(`bbx_1`, {zoom})->img_1",
                 "Crop the tray along `bbx_1` and zoom in to get `img_1`."),
                (f"GROUNDING_2({c} {shape}, `img_1`)->bbx_2", f"Find every {c} {shape} in `img_1`: boxes `bbx_2`."),
                ("COUNTING_1(`bbx_2`)->n_1", "Count the boxes in `bbx_2`: `n_1`."),
                ("None", "There are `n_1` of them, so the answer is `n_1`.")]
    if m := COMPUTE.search(question):
        a, b = m.group(1), m.group(2)
        return [(f"GROUNDING_1({a} tag)->bbx_1", f"Locate the {a} tag and return its box `bbx_1`."),
                (f"CROP_AND_ZOOMIN_1(`bbx_1`, {zoom})->img_1",
                 "Crop the tag along `bbx_1` and zoom in to get `img_1`."),
                ("OCR_1(`img_1`)->txt_1", "Read the price on the tag in `img_1` as `txt_1`."),
                (f"GROUNDING_2({b} tag, `img_0`)->bbx_2", f"Locate the {b} tag in the original image: `bbx_2`."),
                (f"CROP_AND_ZOOMIN_2(`bbx_2`, {zoom})->img_2",
                 "Crop the tag along `bbx_2` and zoom in to get `img_2`."),
                ("OCR_2(`img_2`)->txt_2", "Read the price on the tag in `img_2` as `txt_2`."),
                ("CALCULATE_1(`txt_1` + `txt_2`)->sum_1", "Add the two prices: `sum_1`."),
                ("None", "The total is `sum_1`, so the answer is `sum_1`.")]
    return []


def plan_text(question: str, zoom: str = "2") -> str:
    steps = steps_for(question, zoom) or [("None", "No manipulation helps here; answer directly.")]
    return " ".join(f"Step {i}: ({call}, {desc})" for i, (call, desc) in enumerate(steps, start=1))


def _question(messages: list[dict]) -> str:
    """The asked question: the last "Question:" of the first user turn (demonstrations come before it)."""
    for m in messages:
        if m["role"] == "user":
            found = QUESTION.findall(message_text(m))
            if found:
                return found[-1].strip()
    return ""


def _solve_turn(messages: list[dict], zoom: str = "2") -> str:
    """The next inline call of the plan; after the last call, the answer from the results returned so far."""
    question = _question(messages)
    calls = [c for c, _ in steps_for(question, zoom) if c != "None"]
    done = sum(1 for m in messages if m["role"] == "assistant")
    if done < len(calls):
        return f"Step {done + 1}: {calls[done]}"
    results = re.findall(r"returned: (.*)", message_text(messages[-1])) if messages else []
    answer = results[-1].strip() if results else "unknown"
    return f"So the answer is {answer}."


def plan(messages: list[dict], n: int = 1, temperature: float = 0.0, max_tokens: int = 256, stop=None,
         zoom: str = "2") -> list[str]:
    text = message_text(messages[-1])
    if "Step 1:" in text and "manipulation" in text.lower():
        return [plan_text(_question(messages), zoom)] * n
    return [_solve_turn(messages, zoom)] * n


def plan_auto(messages: list[dict], n: int = 1, temperature: float = 0.0, max_tokens: int = 256,
              stop=None) -> list[str]:
    """`plan` with `auto` zooms (our option, not the official grammar)."""
    return plan(messages, n, temperature, max_tokens, stop, zoom="auto")
