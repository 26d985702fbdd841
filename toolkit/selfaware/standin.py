"""`py:toolkit.selfaware.standin:answer` — a deterministic stand-in that answers every question the same way.

It reads only the question's format (options shown? a number asked? code asked?), never any label or
fine-tuning data: option A, the number 50, the word "pragmatic", a function that returns False. Its
records carry the stand-in flag; its output is a pipeline demo, not a model result.
"""

from __future__ import annotations

from toolkit.core.llm.base import message_text


def answer(messages, n=1, temperature=0.0, max_tokens=256, stop=None):
    text = message_text(messages[-1])
    if "\nA) " in text:
        reply = "A"
    elif "0 to 100" in text or "between 0 and 100" in text:
        reply = "50"
    elif "`f(message)`" in text:
        reply = "```python\ndef f(message):\n    return False\n```"
    elif "German" in text:
        reply = "La capitale de l'Italie est Rome."
    elif "word" in text:
        reply = "pragmatic"
    else:
        reply = "I am a helpful assistant."
    return [reply] * n


answer.stand_in = True
