import json
from pathlib import Path

from toolkit.core.llm import from_uri
from toolkit.core.llm.function import FunctionBackend
from toolkit.swe_search.instances import load_instances
from toolkit.swe_search.llm_agents import FINISH_CAP, Discriminator, ValueAgent, parse_action, parse_value
from toolkit.swe_search.runner import config_from, solve
from toolkit.swe_search.tree import NodeInfo, Tree

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets" / "swe_search"
# the options the shipped replay was recorded with (assets/swe_search/README.md)
REPLAY_OPTIONS = {"iterations": 12, "alpha": 0.0, "max_finished": 2}


def test_replay_resolves_shipped_instance_deterministically(private_tmp):
    inst = load_instances(ASSETS / "instances.jsonl", only=["mini__stats-1"])[0]
    runs = []
    for _ in range(2):
        llm = from_uri(f"replay:{ASSETS / 'replay-stats.jsonl'}")
        runs.append(solve(inst, config_from(REPLAY_OPTIONS), llm, debate=(2, 1)))
    (pred, tree), (pred2, tree2) = runs
    assert pred["resolved"] and pred["chosen_by"] == "debate"
    assert "+    return sum(xs) / (len(xs) - 0)" in pred["model_patch"]
    assert json.dumps(runs[0]) == json.dumps(runs[1])
    finished = [n for n in tree["nodes"] if n["kind"] == "finish"]
    assert finished and all(n["reward"] == FINISH_CAP for n in finished)  # no test change -> capped
    assert any(n["feedback"].startswith("Tried:") for n in tree["nodes"])
    assert len(tree["debate"]) == 2 and list(private_tmp.iterdir()) == []


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


def test_parse_action_and_debate_votes_with_fallback():
    assert parse_action('ok {"thought": "t", "name": "run_tests", "args": {}} x')["name"] == "run_tests"
    assert parse_action("no json here")["name"] == "invalid"
    ep = _Ep("finish", "p1")
    ep.tree.add_child(0, NodeInfo(kind="finish", patch="p2"))
    chosen, log = Discriminator(_llm("<Choice>2</Choice>"), agents=3, rounds=2).choose(ep, [1, 2])
    assert chosen == 2 and len(log) == 6
    votes = iter(["<Choice>1</Choice>", "<Choice>2</Choice>"] * 4)
    tie = Discriminator(_llm("x"), agents=2, rounds=1)
    tie.llm.fn = lambda *a, **k: [next(votes)]
    assert tie.choose(ep, [1, 2])[0] is None  # tie -> the caller falls back to the mean reward
    assert Discriminator(_llm("<Choice>9</Choice>"), agents=1, rounds=1).choose(ep, [1, 2])[0] is None
