import random

import pytest

from toolkit.kvcompress.tasks import TASKS, WORD_ID, decode, make_example, score_answer, training_sequence


@pytest.mark.parametrize("task", TASKS)
def test_examples_are_consistent(task):
    rng = random.Random(0)
    for length in (80, 400):
        ex = make_example(rng, task, length, depth=0.3)
        assert abs(len(ex.prompt) - length) <= 12
        assert ex.prompt[-2:] == ["answer", ":"]
        assert ex.prompt[ex.value_span[0]:ex.value_span[1]] == ex.final
        a, b = ex.answer_span
        assert ex.prompt[a:a + 3] == ["the", "code", "of"] and ex.prompt[b - 1] == "."
        assert ex.answer[-1] == "</s>"
        assert score_answer(ex, ex.answer) and not score_answer(ex, ["v0", "v0", "v0"] if ex.final != ["v0"] * 3
                                                                   else ["v1"] * 3)
        assert decode(ex.ids()) == ex.prompt
        if task == "twohop":
            assert len(ex.support) == 2 and ex.answer[2] == "->"
        else:
            assert ex.support == [ex.answer_span]


def test_depth_places_the_needle():
    rng = random.Random(1)
    early = make_example(rng, "single", 400, depth=0.1).answer_span[0]
    late = make_example(rng, "single", 400, depth=0.9).answer_span[0]
    assert early < 80 < 300 < late


def test_training_sequence_masks_only_answers():
    rng = random.Random(2)
    for _ in range(20):
        ids, mask = training_sequence(rng, 100)
        assert len(ids) == len(mask)
        supervised = [i for i, m in zip(ids, mask, strict=True) if m]
        assert supervised[-1] == WORD_ID["</s>"]
        assert sum(1 for i in supervised if i == WORD_ID["</s>"]) in (1, 2, 3)
