import random

import pytest

from toolkit.kvcompress.tasks import ALL_TASKS, WORD_ID, decode, make_example, score_answer, training_sequence


@pytest.mark.parametrize("task", ALL_TASKS)
def test_examples_are_consistent(task):
    rng = random.Random(0)
    for length in (80, 400):
        ex = make_example(rng, task, length, depth=0.3)
        assert abs(len(ex.prompt) - length) <= 12
        assert ex.prompt[-1] == ("?" if task == "twohop" else "is")
        assert ex.prompt[ex.value_span[0]:ex.value_span[1]] == ex.final
        a, b = ex.answer_span
        assert ex.prompt[a:a + 3] == ["the", "code", "of"] and ex.prompt[b - 1] == "."
        assert ex.answer[-1] == "</s>"
        assert score_answer(ex, ex.answer) and not score_answer(ex, ["v0", "v0", "v0"] if ex.final != ["v0"] * 3
                                                                   else ["v1"] * 3)
        assert decode(ex.ids()) == ex.prompt
        if task == "twohop":  # asks for the code, answered with the link restated, then the fact
            key = ex.prompt[-4:-2]
            assert ex.prompt[-8:-4] == ["question", ":", "code", "via"]
            assert len(ex.support) == 2 and ex.answer[:4] == [*key, "links", "to"] and ex.answer[6] == "->"
            assert not score_answer(ex, ex.final)  # the steps are part of the expected answer
        elif task == "latent":  # answered directly; the question names only the first key
            assert ex.answer == [*ex.final, "</s>"] and ex.prompt[-7:-3] == ["question", ":", "code", "via"]
            key = ex.prompt[-3:-1]
            assert len(ex.support) == 2 and ex.answer_span in ex.support
            la, lb = next(s for s in ex.support if s != ex.answer_span)
            assert ex.prompt[la:la + 4] == [*key, "links", "to"]
            fa, fb = ex.answer_span
            assert ex.prompt[fa:fb] == ["the", "code", "of", *ex.prompt[la + 4:la + 6], "is", *ex.final, "."]
            assert key not in [ex.prompt[a + 3:a + 5] for a, _ in ex.spans]  # no fact about the asked key
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


def test_latent_training_asks_the_explicit_question_only_after_the_latent_one():
    rng = random.Random(4)
    latent = chain = 0
    for _ in range(200):
        ids, _ = training_sequence(rng, 600, max_questions=8, tasks=("latent",))
        words = decode(ids)
        asked = [words[i:i + 8] for i, w in enumerate(words) if w == "question"]
        asked = [q for q in asked if q[1:4] == [":", "code", "via"]]  # not a copy drill's random words
        for i, q in enumerate(asked):
            if q[7] != "?":
                latent += 1
            else:
                chain += 1
                later = [a for a in asked[i + 1:] if a[7] != "?" and a[4:6] == q[4:6]]
                assert not later, "a latent answer must not follow the explicit answer about its key"
    assert latent > 300 and chain > 100


def test_default_training_mix_has_no_latent_questions():
    rng = random.Random(5)
    for _ in range(50):
        ids, _ = training_sequence(rng, 300)
        words = decode(ids)
        vias = [i for i, w in enumerate(words) if words[i - 3:i + 1] == ["question", ":", "code", "via"]]
        assert all(words[i + 4] == "?" for i in vias)  # every two-hop question asks for the steps


def test_long_training_sequences_carry_more_questions_and_copy_drills():
    rng = random.Random(3)
    questions, drills = [], []
    for _ in range(12):
        ids, mask = training_sequence(rng, 2048, repeat_prob=1.0)
        questions.append(sum(1 for i, m in zip(ids, mask, strict=True) if m and i == WORD_ID["</s>"]))
        ctx_end = ids.index(WORD_ID["question"])
        runs, i = [], 0
        while i < ctx_end:  # supervised runs inside the haystack are copy drills
            if mask[i]:
                j = i
                while j < ctx_end and mask[j]:
                    j += 1
                runs.append((i - 2, j))
                i = j
            else:
                i += 1
        for a, b in runs:
            chunk = ids[a:b]
            assert any(ids[k:k + len(chunk)] == chunk for k in range(a - len(chunk) + 1)), "a drill repeats a chunk"
        drills.append(len(runs))
    assert max(questions) > 3 and min(questions) >= 1
    assert max(drills) >= 3  # one drill chance per started 512 words


def test_stretched_positions_have_one_skip_between_fillers():
    from toolkit.kvcompress.tasks import FILLER
    from toolkit.kvcompress.train import stretched_positions

    rng = random.Random(0)
    ids, _ = training_sequence(rng, 120)
    fill = {WORD_ID[w] for w in FILLER}
    jumps_seen = 0
    for _ in range(30):
        pos = stretched_positions(rng, ids, 4096)
        steps = [b - a for a, b in zip(pos, pos[1:], strict=False)]
        jumps = [i + 1 for i, s in enumerate(steps) if s != 1]
        assert len(jumps) <= 1 and pos[-1] < 4096 and all(s >= 1 for s in steps)
        for j in jumps:
            assert ids[j] in fill and ids[j - 1] in fill
            jumps_seen += 1
    assert 5 < jumps_seen < 25


def test_lasso_weights_per_layer():
    from toolkit.kvcompress.train import lasso_weights

    assert lasso_weights(0.08, 3) == [0.08] * 3 and lasso_weights("0.1,0.1,0,0", 4) == [0.1, 0.1, 0.0, 0.0]
    for bad in ("0.1,0.2", "-1", "x"):
        with pytest.raises(ValueError, match="one per layer"):
            lasso_weights(bad, 4)


def test_train_a_few_steps_saves_a_loadable_model(tmp_path):
    from toolkit.kvcompress.loading import load_model
    from toolkit.kvcompress.train import train

    summary = train(tmp_path / "m", curriculum="1:drill:2,2:40-48:2", n_layers=1, n_heads=2, n_kv_heads=1,
                    hidden=16, log_every=3, check_lengths=(64,), check_n=2)
    assert [e["step"] for e in summary["log"]] == [1, 3] and summary["log"][-1]["stage"] == "2:40-48:2"
    assert set(summary["final_teacher_forced"]) == {"64"} and (tmp_path / "m" / "training_log.json").exists()
    assert set(summary["final_teacher_forced_per_task"]["64"]) == {"single", "multikey", "twohop"}
    model, _ = load_model(tmp_path / "m")
    assert model.config.num_key_value_heads == 1


def test_train_on_a_latent_mix_with_per_layer_lasso(tmp_path):
    from toolkit.kvcompress.train import train

    summary = train(tmp_path / "m", curriculum="2:40-48:2", n_layers=2, n_heads=2, n_kv_heads=1, hidden=16,
                    head_lasso="0.1,0", tasks=("single", "latent", "latent"), check_lengths=(64,), check_n=2)
    assert summary["head_lasso"] == [0.1, 0.0] and summary["tasks"] == ["single", "latent", "latent"]
    assert set(summary["final_teacher_forced_per_task"]["64"]) == {"single", "latent"}
