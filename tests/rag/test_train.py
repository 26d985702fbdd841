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


def test_training_counts_steps_and_runs_in_resumable_chunks(tmp_path, monkeypatch):
    from toolkit.core.errors import InputError

    one = train.TrainingWorlds([0])
    small = train.validation_sets(n=2)
    monkeypatch.setattr(train, "TrainingWorlds", lambda: one)
    monkeypatch.setattr(train, "validation_sets", lambda **_: small)
    first = train.train(tmp_path, steps=8, chunk_steps=3, batch=2, log_every=10**6)
    assert not first["complete"] and (tmp_path / train.CHECKPOINT).exists() and first["steps"] == 3
    with pytest.raises(InputError, match="not --steps 9"):
        train.train(tmp_path, steps=9, resume=True)
    # a time cap pauses the run the same way; the budget is steps, so the cap may change between chunks
    capped = train.train(tmp_path, steps=8, minutes=1e-9, batch=2, log_every=10**6, resume=True)
    assert not capped["complete"] and capped["steps"] == 3
    second = train.train(tmp_path, steps=8, batch=2, log_every=10**6, resume=True)
    # the schedule continues: the second run counts the first one's steps and stops at the budget
    assert second["complete"] and second["steps"] == 8
    assert not (tmp_path / train.CHECKPOINT).exists() and (tmp_path / "training_log.json").exists()
    warm = train.train(tmp_path / "warm", steps=2, batch=2, log_every=10**6, init_from=tmp_path)
    assert warm["curriculum"] == "warm" and warm["complete"] and not warm["mark"]
    # marked query terms: the unmarked reader's weights grow by the mark's row, every other id kept
    marked = train.train(tmp_path / "marked", steps=2, batch=2, log_every=10**6, init_from=tmp_path, mark=True,
                         curriculum="subject")
    assert marked["mark"] and marked["curriculum"] == "subject" and marked["complete"]
    plain, grown = train.build_tokenizer().get_vocab(), train.build_tokenizer(mark=True).get_vocab()
    assert grown[prompts.MARK] == len(plain) and all(grown[w] == i for w, i in plain.items())


def test_curriculum_stages_follow_the_share_of_steps():
    assert train.stage_at(0.0, "scratch")[0] == "drill" and train.stage_at(0.3, "scratch") == ("short", 2, 0)
    assert train.stage_at(0.6, "scratch") == ("medium", 4, 1) and train.stage_at(0.99, "scratch") == ("full", 12, 2)
    assert train.stage_at(0.3, "warm") == ("medium", 4, 1)
    assert train.stage_at(0.0, "subject") == ("short", 2, 0) and train.stage_at(0.3, "subject")[0] == "full"


def test_marked_prompts_mark_the_served_question_words_and_the_default_marks_nothing():
    docs = [{"title": "salouth", "text": "the spouse of salouth is taerin ."},
            {"title": "drasath", "text": "the employer of drasath is nori ."}]
    plain = prompts.build_prompt("iterdrag", "what is the employer of salouth ?", docs, [])
    assert prompts.MARK not in plain.split()  # the default prompt is the shipped one
    marked = prompts.mark_query_terms(plain).split("\n")
    assert marked[2] == "document : * salouth : the spouse of * salouth is taerin ."
    assert marked[1] == "document : drasath : the * employer of drasath is nori ."
    # in a chain the documents serve the newest follow-up question
    chain = ["follow up : what is the employer of drasath ?", "intermediate answer : nori",
             "follow up : what is the spouse of drasath ?"]
    lines = prompts.mark_query_terms(prompts.build_prompt("iterdrag", "what is x ?", docs, [], chain)).split("\n")
    assert lines[1] == "document : * drasath : the employer of * drasath is nori ."
    assert lines[2] == "document : salouth : the * spouse of salouth is taerin ."
    assert lines[3] == "question : what is x ?" and lines[4:] == chain  # only documents are marked


def _gold_place(prompt: str, gold_text: str) -> int:
    docs = [line for line in prompt.split("\n") if line.startswith("document :")]
    return next(i for i, line in enumerate(docs) if line.endswith(gold_text)) - len(docs)  # -1: nearest


def test_single_hop_examples_put_the_gold_document_anywhere(one_world):
    """BM25 ranks a 1-hop question's gold document first (written nearest the question) almost always; trained
    on that order, a reader copies from the nearest document and scores near chance when the gold one is
    elsewhere. In training prompts the place must carry no answer."""
    import random

    w = one_world.get(0)[0]
    by_question = {q.question: one_world.doc(0, q.decomposition[0]["doc"]) for q in w.questions if q.hops == 1}
    places = []
    for i in range(300):
        prompt, _ = train.single_hop(random.Random(i), one_world, 8, 0)
        question = prompt.split("\n")[-1][len("question : "):]
        n = prompt.count("document :")
        if n >= 4:
            assert by_question[question]["text"] in prompt  # the gold document is always there
            places.append(_gold_place(prompt, by_question[question]["text"]))
    nearest = places.count(-1) / len(places)
    assert len(places) > 150 and nearest < 0.3, nearest  # a 1-in-4..8 draw, not BM25's ~1.0
    pairs = [train.single_hop(random.Random(i), one_world, 8, 0) for i in range(200)]
    assert train.shortcut_baselines([p for p in pairs if p[0].count("document :") >= 4])["position"] < 0.3


def test_chain_examples_hold_same_relation_distractors_in_a_random_order(one_world):
    import random

    w = one_world.get(0)[0]
    rel_of = {doc: rel for (_, rel), doc in w.fact_doc.items()}
    nouns = {r: v[2] for r, v in world.RELATIONS.items()}
    rng, extra = random.Random(3), []
    for _ in range(100):
        prompt, target = train.chain_step(rng, one_world, 4, 0)
        if not target.startswith(prompts.INTERMEDIATE):
            continue
        sub = [line for line in prompt.split("\n") if line.startswith(prompts.FOLLOW)][-1]
        noun = sub.split(" of ")[0].split(" the ")[-1]
        rel = next(r for r, n in nouns.items() if n == noun)
        same = [d for (s, r), d in w.fact_doc.items() if r == rel]
        texts = [one_world.doc(0, d)["text"] for d in same]
        extra.append(sum(t in prompt for t in texts))
    assert len(extra) > 20 and min(extra) >= 2  # the gold document and at least one other of its relation
    assert set(rel_of.values()) == set(world.RELATIONS)


def test_recall_drill_supervises_each_queried_value():
    import random

    tok = train.build_tokenizer()
    ids, labels, _ = train.recall_drill(random.Random(0), tok, 4)
    for b in range(4):
        seq = ids[b].tolist()
        for pos in (labels[b] != -100).nonzero().flatten().tolist():
            key = seq[pos - 1]
            first = seq.index(key)
            assert first < pos - 1 and seq[first + 1] == seq[pos] and first % 2 == 0


def test_validation_one_hop_check_spreads_the_gold_document_and_the_ranked_one_does_not():
    """`one_hop_k9` (gold at a random place) and `one_hop_k9_ranked` (BM25's order, as `rag run -k 9`) differ
    only in the order of the same nine documents: a reader reading by place scores high on the second alone."""
    sets = train.validation_sets(n=32)
    spread, ranked = (train.shortcut_baselines(sets[k]) for k in ("one_hop_k9", "one_hop_k9_ranked"))
    assert spread["position"] <= 0.25 and ranked["position"] >= 0.9 and spread["prior"] <= 0.1
    for (a, ta), (b, tb) in zip(sets["one_hop_k9"], sets["one_hop_k9_ranked"], strict=True):
        assert ta == tb and sorted(a.split("\n")) == sorted(b.split("\n"))
