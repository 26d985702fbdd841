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


def test_pretrain_logs_binding_checks_and_grows_the_curriculum_pool(tmp_path, monkeypatch):
    """A few steps: the log carries the known-persona checks (whole list and first pool), world.json the stage."""
    import json

    from toolkit.selfaware import pretrain as P

    pools = []
    real = W.corpus_sequence

    def spy(rng, people, pool, mixed, pack=6):
        pools.append(len(pool))
        return real(rng, people, pool, mixed, pack=pack)

    monkeypatch.setattr(W, "corpus_sequence", spy)
    def check(model, tok, known, n=20):  # the real check costs seconds; this one reports how many it was given
        return {fam: {"acc": min(n, len(known)), "behaviour": 1.0} for fam in W.FAMILIES}

    monkeypatch.setattr(P, "binding_check", check)
    out = tmp_path / "m"
    P.pretrain(out, minutes=10, batch=2, max_steps=4, check_every=2, curriculum=(20, 1, 2), pack=2)
    world = json.loads((out / "world.json").read_text())
    assert world["steps"] == 4 and [e["step"] for e in world["log"]] == [2, 4]
    assert world["log"][0]["first_pool"]["risk"]["acc"] == 20 and world["final_check_all"]["time"]["acc"] == 200
    assert world["stages"][-1]["curriculum"] == [20, 1, 2]
    assert pools[:2] == [20, 20] and pools[-1] == 200  # last 20 first, then all known personas
