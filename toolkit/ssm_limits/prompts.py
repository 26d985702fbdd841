"""Prompts (direct and chain of thought) and the gold chain-of-thought text of a problem.

A chain of thought is one line "step i: VALUE" per trace node (zebra: "step i: VALUE is in house H"),
then "Answer: ANSWER". The parser (parse.py) reads the same format back.
"""

from __future__ import annotations

from toolkit.ssm_limits.zebra import clue_text

COT_TAIL = ("Think step by step: write one line 'step i: VALUE' per intermediate result, in order, "
            "then a last line 'Answer: ANSWER'.")
DIRECT_TAIL = "Reply with one line 'Answer: ANSWER' and nothing else."


def steps(problem: dict) -> list[dict]:
    """The trace nodes a chain of thought writes (inputs excluded)."""
    return [n for n in problem["trace"] if n["id"] != "x"]


def step_text(task: str, node: dict) -> str:
    if task == "zebra":
        return f"{node['id'][2:]} is in house {node['value']}"
    return node["value"]


def gold_cot(problem: dict) -> str:
    lines = [f"step {i}: {step_text(problem['task'], n)}" for i, n in enumerate(steps(problem), start=1)]
    return "\n".join(lines + [f"Answer: {problem['answer']}"])


def _body(problem: dict) -> str:
    task, d = problem["task"], problem["data"]
    if task == "compose":
        from toolkit.ssm_limits.tasks import SET_LETTERS

        pairs = ", ".join(f"{x}-symbols to {y}-symbols"
                          for x, y in zip(SET_LETTERS[: d["k"]], SET_LETTERS[1: d["k"] + 1], strict=True))
        intro = f"Each line 'x -> y' maps a symbol to a symbol ({pairs})."
        table = "\n".join(f"{a} -> {b}" for a, b in d["lines"])
        query = f"Query: start at {d['x']} and follow the maps {d['k']} time(s). What symbol do you reach?"
        parts = [intro, query, table] if d.get("query_first") else [intro, table, query]
        return "\n".join(parts)
    if task == "iterate":
        table = "\n".join(f"f({i}) = {v}" for i, v in enumerate(d["f"]))
        return (f"A function f on 0..{d['n'] - 1} is given by its table:\n{table}\n"
                f"Query: start at x = {d['x']} and apply f {d['k']} time(s). What is the result?")
    if task == "mult":
        return (f"Multiply {d['a']} by {d['b']}. Intermediate results: the partial product of {d['a']} with each "
                f"digit of {d['b']} from the right (shifted by its place), then the running sums.")
    if task == "dp":
        return (f"Sequence: {' '.join(map(str, d['a']))}\nChoose a subsequence with no two adjacent elements "
                "that has the largest sum; among equal sums prefer skipping earlier elements. Intermediate results: "
                "dp[i] = max(dp[i+1], a[i] + dp[i+2]) from the last index to the first, then the choice (1 = take, "
                "0 = skip) of each element from the first. Answer with the choices separated by spaces.")
    if task == "zebra":
        from toolkit.ssm_limits.zebra import ATTRS

        kinds = "; ".join(f"{a}: {', '.join(ATTRS[a][: d['n']])}" for a in d["attrs"])
        clues = "\n".join(f"{c['id']}. {clue_text(c)}" for c in d["clues"])
        return (f"There are {d['n']} houses numbered 1 to {d['n']} from left to right. Each house has one value of "
                f"each attribute, all different ({kinds}).\n{clues}\nIntermediate results: one line per value "
                "placed, 'step i: VALUE is in house H'. Answer as 'house 1: VALUES; house 2: VALUES; ...' with "
                "the values in the attribute order above.")
    raise ValueError(task)


def render(problem: dict) -> dict:
    body = _body(problem)
    return {"prompt_direct": f"{body}\n{DIRECT_TAIL}", "prompt_cot": f"{body}\n{COT_TAIL}"}


def messages(problem: dict, mode: str, shots: list[dict]) -> list[dict]:
    """Chat messages: each shot as a user prompt and the gold reply, then the problem."""
    key = "prompt_cot" if mode == "cot" else "prompt_direct"
    out = []
    for s in shots:
        reply = gold_cot(s) if mode == "cot" else f"Answer: {s['answer']}"
        out += [{"role": "user", "content": s[key]}, {"role": "assistant", "content": reply}]
    return out + [{"role": "user", "content": problem[key]}]
