from __future__ import annotations

import json
import re

import pytest

from toolkit.core.errors import InputError
from toolkit.steer.tasks import FAMILIES, generate, make_pairs, read_pairs, read_problems, vocabulary


def _math_value(prompt: str) -> int:
    expr = prompt.removeprefix("math ").removesuffix(" =")
    assert re.fullmatch(r"[0-9+\-*() ]+", expr)
    return eval(expr)  # noqa: S307 - digits and operators only, checked above


def _deduce(prompt: str) -> bool:
    facts, query = prompt.rsplit(" . ", 1)
    edges = []
    for fact in facts.split(" . "):
        words = fact.strip(" .").split()
        edges.append((words[0], words[2]) if words[1] == ">" else (words[1], words[3]))
    q = query.removesuffix(" ?").split()
    x, y = (q[1], q[3]) if q[0] == "is" else (q[2], q[3])
    reach, frontier = set(), {x}
    while frontier:
        nxt = {b for a, b in edges if a in frontier} - reach
        reach |= nxt
        frontier = nxt
    return y in reach


@pytest.mark.parametrize("family", FAMILIES)
def test_same_seed_same_problems_and_splits_differ(family):
    a = generate(family, "train", 30, seed=3)
    assert [p.prompt for p in a] == [p.prompt for p in generate(family, "train", 30, seed=3)]
    assert [p.prompt for p in a] != [p.prompt for p in generate(family, "train", 30, seed=4)]
    assert [p.prompt for p in a] != [p.prompt for p in generate(family, "test", 30, seed=3)]
    # growing a split keeps its prefix
    short = [p.prompt for p in generate(family, "test", 10, 3)]
    assert short == [p.prompt for p in generate(family, "test", 20, 3)][:10]


def test_answers_are_correct_and_options_are_valid():
    vocab = set(vocabulary())
    for p in generate("mathematical", "test", 200, 1):
        assert int(p.correct) == _math_value(p.prompt)
        assert len(set(p.options)) == 4
    for p in generate("deductive", "test", 200, 1):
        assert p.correct == ("yes" if _deduce(p.prompt) else "no")
    answers = [p.correct for p in generate("deductive", "test", 400, 1)]
    assert 0.4 < answers.count("yes") / len(answers) < 0.6
    for p in generate("inductive", "test", 200, 1):
        seq = [int(x) for x in p.prompt.split()[1:-2]]
        rule, ans = p.meta["rule"], int(p.correct)
        expect = {"add": seq[-1] + seq[1] - seq[0], "sub": seq[-1] + seq[1] - seq[0],
                  "double": seq[-1] * 2, "period2": seq[-2]}[rule]
        assert ans == expect
    for f in FAMILIES:
        for p in generate(f, "validation", 100, 2):
            assert set(p.prompt.split()) <= vocab and set(p.options) <= vocab


def test_pairs_positive_correct_negative_wrong():
    problems = generate("mathematical", "train", 50, 0)
    pairs = make_pairs(problems, seed=0)
    for p, pair in zip(problems, pairs, strict=True):
        assert pair.positive == f"{p.prompt} {p.correct}"
        neg = pair.negative.removeprefix(p.prompt + " ")
        assert neg in p.options and neg != p.correct
    assert [x.negative for x in make_pairs(problems, 0)] == [x.negative for x in pairs]


def test_read_user_pairs_and_errors(tmp_path):
    f = tmp_path / "pairs.jsonl"
    f.write_text(json.dumps({"positive": "a b", "negative": "a c"}) + "\n" + json.dumps({"positive": "x"}) + "\n")
    with pytest.raises(InputError, match=r"pairs.jsonl:2: field 'negative'"):
        read_pairs(f)
    from toolkit.core.records import BadLines

    bad = BadLines()
    assert [p.positive for p in read_pairs(f, skip_bad=True, bad=bad)] == ["a b"]
    assert bad.count == 1
    g = tmp_path / "problems.jsonl"
    g.write_text(json.dumps({"prompt": "q", "options": ["yes", "no"], "answer": 5}) + "\n")
    with pytest.raises(InputError, match="field 'answer'"):
        read_problems(g)


def test_unknown_family():
    with pytest.raises(InputError, match="expected one of inductive"):
        generate("abductive", "train", 3)
