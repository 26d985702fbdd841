"""A rule-based stand-in for the LLM answerer (`--llm py:toolkit.maps.standin:respond`): it reads only the
prompt. A refine prompt gets the netlist with <Empty> values filled from the question's "Given" clause; an
answer prompt about a meter gets that meter's value from the listed simulation results; anything else gets
a reply without JSON (counted as unparsed). Its output is a pipeline demo, not a model result.
"""

from __future__ import annotations

import json
import re

from toolkit.core.errors import InputError
from toolkit.maps.answer import fill_empty, read_question
from toolkit.maps.netlist import parse_netlist


def _section(prompt: str, head: str, tail: str | None = None) -> str:
    text = prompt.split(head, 1)[1] if head in prompt else ""
    return text.split(tail, 1)[0] if tail and tail in text else text


def respond(messages, n=1, temperature=0.0, max_tokens=256, stop=None):
    prompt = messages[-1]["content"]
    if isinstance(prompt, list):
        prompt = " ".join(part.get("text", "") for part in prompt if isinstance(part, dict))
    question = _section(prompt, "Question: ", "\n\n").strip()
    if "```SPICE" in prompt:
        try:
            filled = fill_empty(parse_netlist(_section(prompt, "Netlist:\n")), question)
        except InputError:
            filled = None
        return [f"```spice\n{filled.text()}```" if filled else "I cannot fill these values."] * n
    asked = read_question(question)
    results = _section(prompt, "Simulation results")
    if asked and asked[0] == "meter":
        m = re.search(rf"^{re.escape(asked[1])} = (\S+)$", results, re.MULTILINE)
        if m:
            return [json.dumps({asked[1]: float(m.group(1))})] * n
    return ["I cannot tell from the results given."] * n
