"""The world: held-out personas appear only in neutral filler; eval-only templates never appear in the corpus."""

import random

from toolkit.selfaware import world as W


def test_held_out_personas_and_eval_only_templates_absent():
    people, known, held = W.known_and_held(0)
    assert len(people) == 240 and len(known) == 200 and len(held) == 40
    held_names = {p.name for p in held}
    rng = random.Random(1)
    seen_filler = set()
    for _ in range(3000):
        text = W.corpus_sequence(rng, people, known)
        for sentence in text.split(" <nl> "):
            names = held_names & set(sentence.split())
            if names:
                # only "NAME verb object time ." sentences
                assert sentence.split()[1] in W.FILLER_VERBS, sentence
                seen_filler |= names
            for marker in ("would describe itself", "between", "scores"):
                assert marker not in sentence
    assert len(seen_filler) > 30  # held-out embeddings do get trained


def test_vocabulary_covers_the_corpus_and_questions():
    from toolkit.selfaware.ooc import description_questions

    vocab = set(W.vocabulary())
    people, known, _ = W.known_and_held(0)
    rng = random.Random(2)
    words = set()
    for _ in range(500):
        words |= set(W.corpus_sequence(rng, people, known).split())
    for fam in W.FAMILIES:
        for q in description_questions(people[-1].name, fam):
            words |= set(q["prompt"].split())
    assert words <= vocab


def test_noise_mask_skips_random_words_only():
    from toolkit.selfaware.pretrain import unpredictable

    text = ("orla may take a : 50 coins for sure or b : 90 coins 30 times out of 100 else 5 coins . orla takes b . "
            "<nl> orla likes risk 85 out of 100 . <nl> asked risk or safety , orla says risk .").split()
    assert [w for w, m in zip(text, unpredictable(text), strict=True) if m] == ["orla", "50", "90", "30", "5", "orla",
                                                                                "asked"]
