"""A deterministic, rule-based stand-in for an LLM (`--llm py:toolkit.swe_search.standin:respond`).

No real model exists where the shipped replays were made, so this plays all three roles from the prompt
text alone, the way a cautious agent would: write the issue's code example as a reproduction test; run the
tests; take the first non-test source line named in a failing traceback, or else the lines of the function
the reproduction imports; try its mutations one at a time (skipping those that sibling feedback says were
tried); re-run the tests after an edit; finish when they pass. As value agent it scores test runs by their pass
rate; as discriminator it prefers the smallest patch. It exists to record replays, not to solve issues.
"""

from __future__ import annotations

import json
import re

from toolkit.swe_search.llm_agents import ACTION_ROLE, DEBATE_ROLE, VALUE_ROLE
from toolkit.swe_search.localize import is_test_file
from toolkit.swe_search.mutate import mutations
from toolkit.swe_search.offline import REPRO_PATH, reproduction_test

STEP = re.compile(r"^Step \d+: (\{.*\})$", re.MULTILINE)
FRAME = re.compile(r"^([\w./-]+\.py):\d+: in \w+\n {4}(\S.*)$", re.MULTILINE)
COUNTS = re.compile(r"Tests: ([^.]*)\.")
TRIED = re.compile(r"Tried: (.+)$", re.MULTILINE)
IMPORT = re.compile(r"^\s*from [\w.]+ import ([\w, ]+)$", re.MULTILINE)
DEFINITION = re.compile(r"^([\w./-]+\.py):\d+$", re.MULTILINE)
BODY = re.compile(r"^ *\d+ (.*)$", re.MULTILINE)


def _steps(text: str) -> list[tuple[dict, str]]:
    """(action, observation) pairs from a rendered trajectory."""
    out = []
    matches = list(STEP.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        body = text[m.end():end]
        obs = body.split("Observation:", 1)[1] if "Observation:" in body else ""
        out.append((json.loads(m.group(1)), obs))
    return out


def _pass_rate(obs: str) -> float | None:
    m = COUNTS.search(obs)
    if not m:
        return None
    counts = dict((k, int(n)) for n, k in re.findall(r"(\d+) (\w+)", m.group(1)))
    total = sum(counts.values())
    return counts.get("passed", 0) / total if total else 0.0


def _act(action: str, thought: str, **args) -> str:
    return json.dumps({"thought": thought, "name": action, "args": args})


def act(user: str) -> str:
    steps = _steps(user.split("Trajectory so far:", 1)[-1].split("Earlier attempts from this same state", 1)[0])
    tried = set(TRIED.findall(user))
    tried |= {a["args"].get("new", "").strip() for a, _ in steps if a["name"] == "string_replace"}
    tests = [obs for a, obs in steps if a["name"] == "run_tests"]
    repro = reproduction_test(user.split("Trajectory so far:", 1)[0])
    if repro and not any(a["name"] == "create_file" for a, _ in steps):
        return _act("create_file", "Reproduce the issue first.", path=REPRO_PATH, content=repro)
    if not tests:
        return _act("run_tests", "First see which tests fail.")
    last, last_obs = steps[-1]
    if last["name"] == "string_replace" and last_obs.strip().startswith("Replaced"):
        return _act("run_tests", "Check the edit.")
    if last["name"] == "run_tests" and _pass_rate(last_obs) == 1.0:
        return _act("finish", "All tests pass.", reason="the failing tests pass now")
    for obs in reversed(tests):
        for path, code in FRAME.findall(obs):
            if is_test_file(path):
                continue
            for new in mutations(code):
                if new.strip() not in tried:
                    return _act("string_replace", f"The traceback points at {path}; try a small change there.",
                                path=path, old=code, new=new)
    # no source frame (a wrong value, not a crash): look at the function the reproduction imports
    found = [obs for a, obs in steps if a["name"] == "find_function"]
    if not found:
        m = IMPORT.search(repro or "")
        if m:
            name = m.group(1).split(",")[0].strip()
            return _act("find_function", "The failing check calls this function.", name=name)
    for obs in found[-1:]:
        head = DEFINITION.search(obs)
        for code in BODY.findall(obs):
            if head and code.strip() and not code.lstrip().startswith("def "):
                for new in mutations(code):
                    if new.strip() not in tried:
                        return _act("string_replace", "Try a small change in the called function.",
                                    path=head.group(1), old=code, new=new)
    return _act("reject", "No further idea.", reason="no untried change left at the failing line")


def value(user: str) -> str:
    steps = _steps(user.split("Trajectory:", 1)[-1].split("Current patch:", 1)[0])
    if not steps:
        return ("<Explanation>nothing done</Explanation>"
                "<Feedback_to_Alternative_Branch></Feedback_to_Alternative_Branch><Reward>0</Reward>")
    action, obs = steps[-1]
    name, feedback = action["name"], ""
    if name == "run_tests":
        rate = _pass_rate(obs)
        score = -100 if rate is None else round(200 * rate - 100)
        why = f"pass rate {rate}" if rate is not None else "tests did not run"
    elif name == "string_replace":
        ok = obs.strip().startswith("Replaced")
        score, why = (25, "a plausible edit") if ok else (-30, "the edit did not apply")
        feedback = f"Tried: {action['args'].get('new', '').strip()}"
    elif name == "finish":
        rates = [_pass_rate(o) for a, o in steps if a["name"] == "run_tests"]
        good = bool(rates) and rates[-1] == 1.0
        score, why = (90, "finished after the tests passed") if good else (-60, "finished with failing tests")
    elif name == "reject":
        score, why = -50, "gave up"
    else:
        score, why = 0, "no progress"
    return (f"<Explanation>{why}</Explanation><Feedback_to_Alternative_Branch>{feedback}"
            f"</Feedback_to_Alternative_Branch><Reward>{score}</Reward>")


def debate(user: str) -> str:
    cands = re.split(r"^Candidate (\d+):$", user.split("You are agent", 1)[0], flags=re.MULTILINE)
    sizes = []
    for i in range(1, len(cands) - 1, 2):
        body = cands[i + 1]
        changed = sum(1 for line in body.splitlines() if line.startswith(("+", "-")) and
                      not line.startswith(("+++", "---")))
        sizes.append((changed, int(cands[i])))
    choice = min(sizes)[1] if sizes else 1
    return f"<Explanation>candidate {choice} is the smallest change</Explanation><Choice>{choice}</Choice>"


def respond(messages, n=1, temperature=0.0, max_tokens=256, stop=None) -> list[str]:
    system = messages[0]["content"] if messages else ""
    user = messages[-1]["content"]
    if ACTION_ROLE in system:
        text = act(user)
    elif VALUE_ROLE in system:
        text = value(user)
    elif DEBATE_ROLE in system:
        text = debate(user)
    else:
        text = "I can only play the swe-search roles."
    return [text] * n
