"""The LLM side of SWE-Search through the core backends: the action agent, the value agent (an integer
-100..100 with an explanation and feedback for sibling branches) and the discriminator's debate."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkit.swe_search.actions import ACTIONS
from toolkit.swe_search.localize import is_test_file
from toolkit.swe_search.testrun import truncate

if TYPE_CHECKING:
    from toolkit.swe_search.search import Episode

ACTION_ROLE = "ROLE: swe-search action agent"
VALUE_ROLE = "ROLE: swe-search value agent"
DEBATE_ROLE = "ROLE: swe-search discriminator"
FINISH_CAP = 74  # finishing without any test change cannot score >= 75
OBS_CHARS = 1500

ACTION_SYSTEM = f"""{ACTION_ROLE}
You fix an issue in a Python repository by choosing ONE action at a time. Reply with a single JSON object
{{"thought": "...", "name": ACTION, "args": {{...}}}} and nothing else. Actions:
- find_function {{"name": str, "class_name": str (optional)}}; find_class {{"name": str}}
- search_code {{"query": str}}; view_code {{"path": str, "start": int, "end": int}}
- string_replace {{"path": str, "old": str, "new": str}} (old must occur exactly once in the file)
- create_file {{"path": str, "content": str}}; run_tests {{}}
- finish {{"reason": str}} when the issue is fixed; reject {{"reason": str}} when it cannot be fixed."""

VALUE_SYSTEM = f"""{VALUE_ROLE}
You judge the last step of a software agent's trajectory towards resolving an issue. Reply exactly as
<Explanation>why the step helps or not</Explanation>
<Feedback_to_Alternative_Branch>advice for a different attempt from the same state</Feedback_to_Alternative_Branch>
<Reward>integer from -100 to 100</Reward>
A finish without any test change cannot score 75 or more."""

DEBATE_SYSTEM = f"""{DEBATE_ROLE}
Several candidate patches were proposed for the issue, each with the value agent's reward and explanation.
Argue which one resolves it best, considering the other agents' arguments when given.
Reply as <Explanation>...</Explanation><Choice>candidate number</Choice>."""

CONCLUSION_SYSTEM = f"""{DEBATE_ROLE}
You conclude a debate between agents about which candidate patch resolves the issue. Weigh their final
arguments and give the final decision. Reply as <Explanation>...</Explanation><Choice>candidate number</Choice>."""


def _clip(text: str, n: int = OBS_CHARS) -> str:
    return truncate(text, n // 3, n - n // 3)


def render_trajectory(ep: Episode, node: int) -> str:
    parts = []
    for step, info in enumerate(ep.trajectory(node)[1:], 1):
        parts.append(f"Step {step}: {json.dumps({'name': info.action.get('name'), 'args': info.action.get('args')})}"
                     f"\nObservation: {_clip(info.observation)}")
    return "\n\n".join(parts) if parts else "(no steps yet)"


def parse_action(text: str) -> dict[str, Any]:
    """The first JSON object in the reply; a malformed reply becomes an action named 'invalid'."""
    start = text.find("{")
    while start >= 0:
        depth = 0
        for i in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                try:
                    obj = json.loads(text[start:i + 1])
                except json.JSONDecodeError:
                    break
                if isinstance(obj, dict) and "name" in obj:
                    return {"name": str(obj["name"]), "args": obj.get("args") or {},
                            "thought": str(obj.get("thought", ""))}
                break
        start = text.find("{", start + 1)
    return {"name": "invalid", "args": {}, "thought": text[:200]}


def _tag(text: str, tag: str) -> str:
    m = re.search(rf"<{tag}>(.*?)</{tag}>", text, re.DOTALL | re.IGNORECASE)
    return m.group(1).strip() if m else ""


def parse_value(text: str) -> tuple[int | None, str, str]:
    raw = _tag(text, "Reward")
    m = re.search(r"-?\d+", raw or text.rsplit("Reward", 1)[-1])
    value = max(-100, min(100, int(m.group()))) if m else None
    return value, _tag(text, "Explanation"), _tag(text, "Feedback_to_Alternative_Branch")


def sibling_feedback(ep: Episode, node: int) -> str:
    """What earlier children of `node` did, how the value agent scored them and why, and its advice."""
    lines = []
    for c in ep.tree.children_of(node):
        info = ep.tree.info[c]
        action = json.dumps({"name": (info.action or {}).get("name"), "args": (info.action or {}).get("args")},
                            ensure_ascii=False)
        value = f"{info.reward:g}" if info.rewarded else "not valued (duplicate)"
        line = f"- Action: {_clip(action, 400)}\n  Value: {value}\n  Explanation: {_clip(info.explanation, 400)}"
        if info.feedback:
            line += f"\n  Feedback: {_clip(info.feedback, 400)}"
        lines.append(line)
    if not lines:
        return ""
    return "\n\nEarlier attempts from this same state (do something different):\n" + "\n".join(lines)


def touches_tests(patch: str) -> bool:
    files = re.findall(r"^\+\+\+ b/(.+)$", patch, re.MULTILINE)
    return any(is_test_file(f) for f in files)


@dataclass
class ActionAgent:
    llm: Any
    temperature: float = 0.7
    max_tokens: int = 512

    def messages(self, ep: Episode, node: int) -> list[dict[str, str]]:
        hint = sibling_feedback(ep, node)
        user = (f"Issue:\n{ep.inst.problem_statement}\n\nTrajectory so far:\n{render_trajectory(ep, node)}{hint}\n\n"
                "Choose the next action.")
        return [{"role": "system", "content": ACTION_SYSTEM}, {"role": "user", "content": user}]

    def propose(self, ep: Episode, node: int) -> dict[str, Any] | None:
        reply = self.llm.complete(self.messages(ep, node), n=1, temperature=self.temperature,
                                  max_tokens=self.max_tokens).text
        action = parse_action(reply)
        if action["name"] not in ACTIONS:
            action["args"] = {}
        return action


@dataclass
class ValueAgent:
    llm: Any
    temperature: float = 0.2
    max_tokens: int = 384

    def evaluate(self, ep: Episode, node: int) -> tuple[float, str, str]:
        info = ep.tree.info[node]
        user = (f"Issue:\n{ep.inst.problem_statement}\n\nTrajectory:\n{render_trajectory(ep, node)}\n\n"
                f"Current patch:\n{_clip(info.patch) or '(empty)'}\n\nRate the last step.")
        reply = self.llm.complete([{"role": "system", "content": VALUE_SYSTEM}, {"role": "user", "content": user}],
                                  n=1, temperature=self.temperature, max_tokens=self.max_tokens).text
        value, explanation, feedback = parse_value(reply)
        if value is None:
            value, explanation = 0, f"unparseable value reply: {reply[:120]!r}"
        if info.kind == "finish" and not touches_tests(info.patch) and value > FINISH_CAP:
            value = FINISH_CAP
            explanation += f" [capped at {FINISH_CAP}: finished without any test change]"
        return float(value), explanation, feedback


@dataclass
class Discriminator:
    """Multi-agent debate over finished candidates; None when the votes do not settle (mean-reward fallback)."""

    llm: Any
    agents: int = 5
    rounds: int = 3
    temperature: float = 1.0
    max_tokens: int = 384

    def choose(self, ep: Episode, nodes: list[int]) -> tuple[int | None, list[dict[str, Any]]]:
        listing = "\n\n".join(
            f"Candidate {k}:\nReward: {ep.tree.info[n].reward:g}\n"
            f"Explanation: {_clip(ep.tree.info[n].explanation, 500)}\nPatch:\n{_clip(ep.tree.info[n].patch, 2000)}"
            for k, n in enumerate(nodes, 1))
        base = f"Issue:\n{ep.inst.problem_statement}\n\n{listing}"
        log: list[dict[str, Any]] = []
        previous: list[str] = []
        votes: list[int] = []
        for r in range(self.rounds):
            replies = []
            for a in range(self.agents):
                others = ""
                if previous:
                    others = "\n\nOther agents' arguments in the previous round:\n" + "\n".join(
                        f"Agent {j + 1}: {_clip(t, 600)}" for j, t in enumerate(previous) if j != a)
                user = f"{base}{others}\n\nYou are agent {a + 1}. Which candidate resolves the issue?"
                reply = self.llm.complete([{"role": "system", "content": DEBATE_SYSTEM},
                                           {"role": "user", "content": user}], n=1, temperature=self.temperature,
                                          max_tokens=self.max_tokens).text
                replies.append(reply)
                choice = self._choice(reply, len(nodes))
                log.append({"round": r + 1, "agent": a + 1, "choice": choice, "reply": _clip(reply, 600)})
            previous = replies
            votes = [e["choice"] for e in log if e["round"] == r + 1 and e["choice"] is not None]
        # the conclusion step: one more call reads the final arguments and decides
        arguments = "\n".join(f"Agent {j + 1}: {_clip(t, 600)}" for j, t in enumerate(previous))
        reply = self.llm.complete([{"role": "system", "content": CONCLUSION_SYSTEM},
                                   {"role": "user", "content": f"{base}\n\nFinal arguments:\n{arguments}\n\n"
                                                               "Which candidate resolves the issue?"}],
                                  n=1, temperature=0.0, max_tokens=self.max_tokens).text
        choice = self._choice(reply, len(nodes))
        log.append({"round": "conclusion", "agent": None, "choice": choice, "reply": _clip(reply, 600)})
        if choice is not None:
            return nodes[choice - 1], log
        if not votes:
            return None, log
        ranked = Counter(votes).most_common()
        if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            return None, log
        return nodes[ranked[0][0] - 1], log

    @staticmethod
    def _choice(reply: str, n: int) -> int | None:
        m = re.search(r"\d+", _tag(reply, "Choice"))
        return int(m.group()) if m and 1 <= int(m.group()) <= n else None
