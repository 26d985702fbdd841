"""A deterministic, rule-based stand-in for an LLM, usable as `--llm py:toolkit.gama.standin:respond`.

It is NOT a language model: it reads the prompts this package writes and answers with simple
level-1 heuristics, so LLM seats, retries and replays can be exercised offline. To exercise the
retry path it answers in prose without JSON on the first attempt of every third round of the
guessing game, then corrects itself when told the answer could not be used. `garbled` never
gives a usable answer (for tests of the invalid outcome).
"""

from __future__ import annotations

import json
import re


def _num(pattern: str, text: str, default: float) -> float:
    m = re.search(pattern, text)
    if not m:
        return default
    raw = m.group(1)
    if "/" in raw:
        a, b = raw.split("/")
        return float(a) / float(b)
    return float(raw)


def _answer(obj: dict, cot: bool, why: str) -> str:
    if cot:
        obj = {"explanation": why, **obj}
    return json.dumps(obj)


def _decide(system: str, history: list[str], request: str, retry: bool) -> str:
    cot = '"explanation"' in request
    me = int(_num(r"You are player_(\d+)", system, 0))
    n = int(_num(r"one of (\d+)", system, 10))
    rnd = int(_num(r"Round (\d+)", request, 1))
    if "number-guessing" in system:
        ratio = _num(r"closest to ([\d./]+) of the average", system, 2 / 3)
        hi = _num(r"integer from \d+ to (\d+)", request, 100)
        last = _num(r"Their average is ([\d.]+)", history[-1], hi / 2) if history else hi / 2
        if rnd % 3 == 0 and not retry:
            return f"Hmm, I would go for something like {int(ratio * last)} this time."
        return _answer({"chosen_number": int(ratio * last)}, cot, "level-1: ratio times last average")
    if "popular bar" in system:
        cap = _num(r"at most ([\d.]+)% of the people", system, 60) / 100
        if history:
            went = _num(r"(\d+) of \d+ people went", history[-1], 0)
            go = went / n < cap or (went / n == cap and me % 2 == 0)
        else:
            go = me % 5 < 3
        return _answer({"decision": "go" if go else "stay"}, cot, "go when the bar was not full last time")
    if "sharing" in system and "golds" in system:
        golds = _num(r"sharing (\d+) golds", system, 100)
        return _answer({"claim": int(golds // n)}, cot, "an equal share")
    if "public goods" in system:
        tokens = _num(r"receives (\d+) tokens", system, 20)
        return _answer({"contribution": max(int(tokens // 2) - 2 * len(history), 0)}, cot, "give less over time")
    if "dining together" in system:
        costly = bool(history) and _num(r"(\d+) of \d+ diners ordered the costly", history[-1], 0) >= n / 2
        return _answer({"dish": "costly" if costly else "cheap"}, cot, "follow the table")
    if "sealed-bid auction" in system:
        value = _num(r"worth (\d+) to you", request, 0)
        return _answer({"bid": int(value * 0.8)}, cot, "shade the bid by 20%")
    if "shooting contest" in system:
        standing = [(int(p), float(r)) for p, r in re.findall(r"player_(\d+) \(hit rate ([\d.]+)%\)",
                                                                request.split("Still standing:")[-1])]
        others = [s for s in standing if s[0] != me]
        target = max(others, key=lambda s: (s[1], s[0]))[0] if others else None
        return _answer({"target": f"player_{target}" if target is not None else "none"}, cot, "aim at the best shot")
    if "pirates ranked" in system:
        if "must propose" in request:
            golds = int(_num(r"split of (\d+) golds", request, 100))
            aboard = [int(p) for p in re.findall(r"\"player_(\d+)\"", request)]
            rest = len(aboard) - 1
            share = (golds * 2 // 5) // rest if rest else 0
            plan = {f"player_{p}": share for p in aboard[1:]}
            plan = {f"player_{aboard[0]}": golds - share * rest, **plan}
            return _answer(plan, cot, "keep most, share the rest")
        share = _num(r"You would get (\d+)", request, 0)
        return _answer({"vote": "accept" if share >= 5 else "reject"}, cot, "accept a fair enough share")
    return "I am not sure what this game is."


def respond(messages, n=1, temperature=0.0, max_tokens=256, stop=None):
    """FunctionBackend entry point: the same answer for the same conversation, whatever the temperature."""
    system = messages[0]["content"]
    first_reply = next((i for i, m in enumerate(messages) if m["role"] == "assistant"), len(messages))
    users = [m["content"] for m in messages[1:first_reply] if m["role"] == "user"]
    retry = first_reply < len(messages)
    history = [u for u in users[:-1] if "result" in u]
    return [_decide(system, history, users[-1], retry)] * n


def garbled(messages, n=1, temperature=0.0, max_tokens=256, stop=None):
    """Never answers in a usable form."""
    return ["I would rather not say."] * n
