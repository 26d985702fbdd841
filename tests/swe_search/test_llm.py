import json
from pathlib import Path

from toolkit.core.llm import from_uri
from toolkit.core.llm.function import FunctionBackend
from toolkit.swe_search.instances import load_instances
from toolkit.swe_search.llm_agents import (
    FINISH_CAP,
    Discriminator,
    ValueAgent,
    parse_action,
    parse_value,
    sibling_feedback,
)
from toolkit.swe_search.runner import config_from, solve
from toolkit.swe_search.tree import NodeInfo, Tree

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets" / "swe_search"
# the options the shipped replay was recorded with (assets/swe_search/README.md)
REPLAY_OPTIONS = {"iterations": 12, "max_finished": 2}


def test_replay_resolves_shipped_instance_deterministically(private_tmp):
    inst = load_instances(ASSETS / "instances.jsonl", only=["bench__simple-0"])[0]
    runs = []
    for _ in range(2):
        llm = from_uri(f"replay:{ASSETS / 'replay-simple.jsonl'}")
        runs.append(solve(inst, config_from(REPLAY_OPTIONS), llm, debate=(2, 1)))
    (pred, tree), (pred2, tree2) = runs
    assert pred["resolved"] and pred["expansions"] == 12
    assert "+    return a + b" in pred["model_patch"]
    assert json.dumps(runs[0]) == json.dumps(runs[1])
    nodes = tree["nodes"]
    # the agent wrote the reproduction itself and ran it; the hidden tests ran only in the final check
    assert nodes[1]["action"]["name"] == "create_file" and "test_reproduction" in nodes[1]["action"]["args"]["content"]
    assert not any("test_issue" in c for c in tree["agent_commands"])
    assert "tests/test_issue.py::test_case_0" in tree["final_commands"][0]
    # the deterministic stand-in repeats itself: siblings with the same action are duplicates, never valued
    dups = [n for n in nodes if n["duplicate_of"] >= 0]
    assert dups and all(n["visits"] == 0 and n["terminal"] for n in dups)
    assert any(n["kind"] == "finish" and n["reward"] == 90 for n in nodes)  # the patch adds a test: not capped
    assert list(private_tmp.iterdir()) == []


class _Ep:
    def __init__(self, kind, patch):
        self.tree = Tree()
        self.tree.add_root(NodeInfo())
        self.tree.add_child(0, NodeInfo(action={"name": "finish", "args": {}}, kind=kind, patch=patch))
        self.inst = type("I", (), {"problem_statement": "bug"})()

    def trajectory(self, node):
        return [self.tree.info[i] for i in self.tree.path(node)]


def _llm(text):
    return FunctionBackend(name="fixed", fn=lambda *a, **k: [text])


def test_value_agent_parses_and_caps_finish_without_test_change():
    reply = "<Explanation>done</Explanation><Feedback_to_Alternative_Branch>try x</Feedback_to_Alternative_Branch>" \
            "<Reward>95</Reward>"
    src = "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-a\n+b\n"
    value, why, feedback = ValueAgent(_llm(reply)).evaluate(_Ep("finish", src), 1)
    assert value == FINISH_CAP and feedback == "try x" and "capped" in why
    with_test = src + "diff --git a/tests/test_m.py b/tests/test_m.py\n--- a/tests/test_m.py\n+++ b/tests/test_m.py\n"
    assert ValueAgent(_llm(reply)).evaluate(_Ep("finish", with_test), 1)[0] == 95
    assert ValueAgent(_llm(reply)).evaluate(_Ep("step", src), 1)[0] == 95
    assert parse_value("<Reward>-250</Reward>")[0] == -100 and parse_value("no number")[0] is None
    assert ValueAgent(_llm("garbage")).evaluate(_Ep("step", src), 1)[0] == 0.0


def test_parse_action_and_debate_with_conclusion_and_fallback():
    assert parse_action('ok {"thought": "t", "name": "run_tests", "args": {}} x')["name"] == "run_tests"
    assert parse_action("no json here")["name"] == "invalid"
    ep = _Ep("finish", "p1")
    ep.tree.info[1].explanation, ep.tree.info[1].reward = "tests pass", 85.0
    ep.tree.add_child(0, NodeInfo(kind="finish", patch="p2", explanation="only a guard", reward=-20.0))
    prompts = []

    def fn(messages, **k):
        prompts.append(messages)
        return ["<Choice>2</Choice>"]

    chosen, log = Discriminator(FunctionBackend(name="f", fn=fn), agents=3, rounds=2).choose(ep, [1, 2])
    assert chosen == 2 and len(log) == 7 and log[-1]["round"] == "conclusion"
    first = prompts[0][1]["content"]  # each candidate with its reward and explanation
    assert "Reward: 85\nExplanation: tests pass" in first and "Reward: -20\nExplanation: only a guard" in first
    assert "conclude" in prompts[-1][0]["content"] and "Agent 3:" in prompts[-1][1]["content"]

    def by_role(messages, **k):  # votes tie, the conclusion decides
        if "conclude" in messages[0]["content"]:
            return ["<Choice>1</Choice>"]
        by_role.n += 1
        return [f"<Choice>{by_role.n % 2 + 1}</Choice>"]

    by_role.n = 0
    assert Discriminator(FunctionBackend(name="f", fn=by_role), agents=2, rounds=1).choose(ep, [1, 2])[0] == 1
    # an unparseable conclusion over tied votes -> None (the caller falls back to the mean reward)
    votes = iter(["<Choice>1</Choice>", "<Choice>2</Choice>", "no choice"])
    tie = Discriminator(_llm("x"), agents=2, rounds=1)
    tie.llm.fn = lambda *a, **k: [next(votes)]
    assert tie.choose(ep, [1, 2])[0] is None
    assert Discriminator(_llm("<Choice>9</Choice>"), agents=1, rounds=1).choose(ep, [1, 2])[0] is None


def test_sibling_feedback_carries_action_value_and_explanation():
    ep = _Ep("step", "p")
    ep.tree.info[1].action = {"name": "string_replace", "args": {"path": "m.py", "old": "a", "new": "b"}}
    ep.tree.backpropagate(1, -40.0)
    ep.tree.info[1].explanation, ep.tree.info[1].feedback = "broke two tests", "look at the caller"
    text = sibling_feedback(ep, 0)
    assert '"name": "string_replace"' in text and "Value: -40" in text
    assert "Explanation: broke two tests" in text and "Feedback: look at the caller" in text
    assert sibling_feedback(ep, 1) == ""
