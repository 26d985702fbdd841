"""The reader's training pieces: held-out validation sets, the losses, and the exact-line check."""

from __future__ import annotations

import pytest

from toolkit.rag import prompts, train, world

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def tok():
    return train.build_tokenizer()


def test_validation_sets_hold_the_gold_document_among_eight_distractors():
    sets = train.validation_sets(n=12)
    w = world.generate(train.VALIDATION_SEED)
    assert train.VALIDATION_SEED not in train.TRAIN_SEEDS and train.VALIDATION_SEED < 1000
    gold = {q.question: (q.answers[0], next(d for d in w.docs if d.id == q.decomposition[0]["doc"]))
            for q in w.questions if q.hops == 1}
    for prompt, target in sets["one_hop_k9"]:
        question = prompt.split("\n")[-1][len("question : "):]
        answer, doc = gold[question]
        assert target == f"{prompts.ANSWER} {answer}" and doc.text in prompt
        assert sum(line.startswith("document :") for line in prompt.split("\n")) == 9
    assert len(sets["chain_step_k4"]) == 12


class Oracle:
    """Logits that predict each next word of the sequence, except (optionally) inside the prompt."""

    def __init__(self, vocab_size: int, wrong_before: list[int] | None = None):
        self.vocab_size, self.wrong_before = vocab_size, wrong_before

    def __call__(self, input_ids, attention_mask):
        nxt = torch.roll(input_ids, -1, dims=1)
        if self.wrong_before:
            for b, end in enumerate(self.wrong_before):
                nxt[b, :end] = (nxt[b, :end] + 1) % self.vocab_size
        return type("Out", (), {"logits": torch.nn.functional.one_hot(nxt, self.vocab_size).float()})()


def test_line_exact_checks_the_target_line_alone_when_asked(tok):
    demo = prompts.Demo("what is the capital of redex ?", "kenash")
    pairs = [(prompts.build_prompt("ms", "what is the spouse of toumil ?", [], [demo]), f"{prompts.ANSWER} baefoth")]
    assert train.line_exact(Oracle(len(tok)), tok, pairs) == 1.0
    # wrong on every prompt word (the demonstration's answer included), right on the target line
    n_prompt = len(train.encode(tok.get_vocab(), *pairs[0])[0]) - len(pairs[0][1].split()) - 2
    wrong_prompt = Oracle(len(tok), [n_prompt])
    assert train.line_exact(wrong_prompt, tok, pairs) == 1.0
    assert train.line_exact(wrong_prompt, tok, pairs, target_only=False) == 0.0


def test_prompt_words_add_a_weighted_next_word_loss(tok):
    from transformers import LlamaForCausalLM

    torch.manual_seed(0)
    model = LlamaForCausalLM(train.model_config(len(tok), tok, layers=1, hidden=16, heads=2, intermediate=32))
    demo = prompts.Demo("what is the capital of redex ?", "kenash")
    batch = train.encode_batch(tok, [(prompts.build_prompt("ms", "what is the spouse of toumil ?", [], [demo]),
                                      f"{prompts.ANSWER} baefoth")])
    plain, answer = train.masked_loss(model, *batch)
    total, answer2 = train.masked_loss(model, *batch, lm_weight=0.3)
    assert torch.equal(plain, answer) and torch.allclose(answer, answer2)
    # an untrained model's next-word loss on the prompt is near ln |V|
    assert float((total - answer).detach()) == pytest.approx(0.3 * float(answer.detach()), rel=0.2)


def _follow_ups(prompt: str) -> int:
    return sum(line.startswith(prompts.FOLLOW) for line in prompt.split("\n"))


@pytest.fixture(scope="module")
def one_world():
    return train.TrainingWorlds([0])


def test_chain_examples_cover_every_hop_count_in_the_evaluation_proportions(one_world):
    import random

    rng = random.Random(1)
    # full_chain without demonstrations: the prompt holds the whole gold chain but its final line
    hops = [_follow_ups(train.full_chain(rng, one_world, 4, 0)[0]) for _ in range(400)]
    for h in (1, 2, 3, 4):  # equal shares, as world.generate makes per_hop test questions of each hop count
        assert abs(hops.count(h) / len(hops) - 0.25) < 0.07, (h, hops.count(h))
    assert set(hops) == {1, 2, 3, 4}


def test_chain_examples_follow_the_configured_hop_weights(one_world, monkeypatch):
    import random

    monkeypatch.setattr(train, "HOP_WEIGHTS", {3: 1.0})
    rng = random.Random(2)
    assert {_follow_ups(train.full_chain(rng, one_world, 4, 0)[0]) for _ in range(60)} == {3}
    for _ in range(60):  # a chain step: at most 3 follow-ups so far, and its target belongs to a 3-hop chain
        prompt, target = train.chain_step(rng, one_world, 4, 0)
        assert _follow_ups(prompt) + target.startswith(prompts.FOLLOW) <= 3


def test_training_runs_in_resumable_chunks(tmp_path, monkeypatch):
    from toolkit.core.errors import InputError

    one = train.TrainingWorlds([0])
    small = train.validation_sets(n=2)
    monkeypatch.setattr(train, "TrainingWorlds", lambda: one)
    monkeypatch.setattr(train, "validation_sets", lambda: small)
    first = train.train(tmp_path, minutes=0.12, chunk_minutes=0.03, batch=2, log_every=10**6)
    assert not first["complete"] and (tmp_path / train.CHECKPOINT).exists() and first["steps"] > 0
    assert first["train_seconds"] < 0.12 * 60
    with pytest.raises(InputError, match="not --minutes 0.3"):
        train.train(tmp_path, minutes=0.3, resume=True)
    second = train.train(tmp_path, minutes=0.12, batch=2, log_every=10**6, resume=True)
    # the schedule continues: the second run counts the first one's steps and time and finishes the cap
    assert second["complete"] and second["steps"] > first["steps"] and second["train_seconds"] >= 0.12 * 60
    assert not (tmp_path / train.CHECKPOINT).exists() and (tmp_path / "training_log.json").exists()
