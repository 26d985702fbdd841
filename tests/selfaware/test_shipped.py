"""The shipped world model: known personas described correctly; a held-out LoRA run learns the behaviour;
`report` reproduces the summary stored in ooc-results.jsonl."""

import json
import random

import pytest

from toolkit.core.assets import asset_path

MODEL = asset_path("selfaware/model")
RESULTS = asset_path("selfaware/ooc-results.jsonl")


@pytest.fixture(scope="module")
def world():
    from toolkit.selfaware import ooc as O

    base, tok, info = O.load_world_model(MODEL)
    return base, O.Words(tok), info


@pytest.mark.parametrize("family", ["risk", "time"])
def test_known_persona_accuracy(world, family):
    from toolkit.selfaware.ooc import known_accuracy

    base, words, info = world
    assert known_accuracy(base, words, info["known"][:20], info["poles"], family) >= 0.95


@pytest.mark.parametrize("family", ["risk", "time"])
def test_known_personas_act_by_their_pole(world, family):
    from toolkit.selfaware import ooc as O

    base, words, info = world
    for name in info["known"][:20]:
        p = O.behaviour_score(base, words, O.decisions(random.Random(name), name, family, 20))
        assert (p if info["poles"][name][family] == "A" else 1 - p) >= 0.9, name


def test_one_held_out_lora_run_learns_the_behaviour(world):
    # (its wall time, 15 s budgeted, is a benchmark figure: tests/bench/bench_selfaware.py measures LoRA steps/s)
    from toolkit.selfaware import ooc as O

    base, words, info = world
    lr = next(r["lr"] for r in map(json.loads, RESULTS.read_text().splitlines()) if r["type"] == "selfaware.ooc")
    name = info["held_out"][39]  # never one of the 16 evaluated personas
    docs = O.training_examples(random.Random(5), name, "risk", "A", 64)
    model, losses = O.lora_finetune(base, words, docs, lr=lr, embed_row=words.vocab[name])
    assert losses[-1] < 0.1 * losses[0]
    fresh = O.decisions(random.Random(6), name, "risk", 100)
    assert O.behaviour_score(model, words, fresh) >= 0.9
    assert O.behaviour_score(base, words, fresh) < 0.8


def test_report_reproduces_the_stored_summary(reason):
    stored = [json.loads(x) for x in RESULTS.read_text().splitlines() if x.strip()]
    summary = [r for r in stored if r["type"] == "selfaware.ooc_summary"][-1]["summary"]
    r = reason("selfaware", "report", str(RESULTS))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[0])["summary"] == summary


def test_ooc_defaults_are_the_shipped_recipe():
    """`reason selfaware ooc` without --lr runs at the rate the shipped sweep used (picked before it); 3e-3 moved
    known personas' descriptions by 0.13, over the 0.05 target."""
    import inspect

    from cli.selfaware import ooc
    from toolkit.selfaware import ooc as O

    lr = {r["lr"] for r in map(json.loads, RESULTS.read_text().splitlines()) if r["type"] == "selfaware.ooc"}
    assert lr == {O.DEFAULT_LR} == {inspect.signature(ooc).parameters["lr"].default} == {1e-3}
    assert inspect.signature(O.lora_finetune).parameters["lr"].default == O.DEFAULT_LR
