from pathlib import Path

from tests.aha.test_hindsight import _sample
from toolkit.aha.hindsight import hindsight
from toolkit.aha.pairs import (
    colour_labels,
    handled_colour,
    pair_margin_loss,
    paired_batches,
    twin_pairs,
    verdict_margins,
)
from toolkit.aha.vision_aux import IGNORE
from toolkit.failgen.prompts import explanation
from toolkit.failgen.tasks import PALETTE


def _scenes(n: int):
    out = []
    for k in range(n):
        named, handled = PALETTE[k % 7], PALETTE[(k + 3) % 7]
        why = explanation("wrong_object", f"{named} cube", f"{handled} cube", skill="pick")
        out += [_sample(f"stack-s{k}-nominal", 0, f"pick up the {named} cube", "Yes"),
                _sample(f"stack-s{k}-nominal", 1, f"stack the {named} cube onto the white block", "Yes"),
                _sample(f"stack-s{k}-wrong_object", 0, f"pick up the {named} cube", "No", why),
                _sample(f"stack-s{k}-slip", 0, f"pick up the {named} cube", "No", "it slipped")]
    return out + hindsight(out)


def test_twins_share_a_batch_with_the_same_image_and_opposite_labels():
    samples = _scenes(9)
    pairs = twin_pairs(samples)
    assert len(pairs) == 18  # a "#handled" and an "#other" twin per scene
    for a, b in pairs:
        assert samples[a].image == samples[b].image and samples[a].label != samples[b].label
        assert samples[a].subtask != samples[b].subtask
    for epoch in range(3):
        batches = paired_batches(len(samples), pairs, 4, seed=0, epoch=epoch)
        assert sorted(i for b in batches for i in b) == list(range(len(samples)))
        where = {i: k for k, b in enumerate(batches) for i in b}
        assert all(where[a] == where[b] for a, b in pairs)
        assert len(batches) == -(-len(samples) // 4) and all(3 <= len(b) <= 5 for b in batches[:-1])


def test_colour_label_is_the_object_the_simulator_handled_not_the_one_named():
    samples = _scenes(2)
    by_id = dict(zip((s.sample_id for s in samples), colour_labels(samples), strict=True))
    red, yellow = PALETTE.index("red"), PALETTE.index("yellow")  # scene 0: named red, handled yellow
    assert handled_colour(samples[2]) == "yellow"
    assert by_id["stack-s0-wrong_object/0"] == yellow
    assert by_id["stack-s0-wrong_object/0#handled"] == yellow  # same image: same handled object
    assert by_id["stack-s0-nominal/0"] == red
    assert by_id["stack-s0-nominal/0#other"] == red  # names yellow, shows the red cube handled
    assert by_id["stack-s0-slip/0"] == red
    blank = _sample("push-s1-nominal", 0, "push the box to the line", "Yes")
    assert colour_labels([blank]) == [IGNORE]


def test_margin_loss_reads_the_verdict_position_and_falls_when_the_yes_twin_leads():
    import torch

    vocab, yes_id, no_id = 6, 2, 3
    labels = torch.tensor([[-100, -100, yes_id, 5], [-100, -100, no_id, 5]])
    logits = torch.zeros(2, 4, vocab)
    logits[0, 1, yes_id] = 2.0  # position 1 predicts the first answer token (position 2)
    logits[1, 1, no_id] = 1.5
    logits[:, 2, yes_id] = 9.0  # a later position must not count
    margins = verdict_margins(logits, labels, yes_id, no_id)
    assert torch.allclose(margins, torch.tensor([2.0, -1.5]))
    right = pair_margin_loss(margins, [(0, 1)], [True, False])
    wrong = pair_margin_loss(margins, [(0, 1)], [False, True])
    assert float(right) < 0.05 < 3.0 < float(wrong)
    assert float(pair_margin_loss(margins, [], [True, False])) == 0.0


def test_colour_head_learns_the_colour_from_the_image_features():
    import torch

    from tests.aha.test_hindsight import _projector_model
    from toolkit.aha.vision_aux import VisionProbe

    torch.manual_seed(0)
    model = _projector_model(8)
    probe = VisionProbe(model, "cpu", colours=len(PALETTE))
    colours = torch.tensor([0, 1, 2, 0, 1, 2])
    feats = torch.nn.functional.one_hot(colours, 8).float().unsqueeze(1) * 3
    opt = torch.optim.Adam(probe.parameters(), lr=0.1)
    first = None
    for _ in range(60):
        model(feats)
        probe.loss(torch.full((6,), IGNORE))
        loss = probe.colour_loss(colours)
        first = first if first is not None else float(loss.detach())
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert first > 1.5 and float(loss) < 0.1


def test_training_batches_the_twins_and_logs_the_pair_and_colour_losses(tmp_path):
    import json

    import pytest

    from toolkit.aha.samples import load_samples
    from toolkit.aha.tiny import TinySpec, build_tiny_vlm
    from toolkit.aha.train import TrainConfig, train
    from toolkit.core.errors import InputError
    from toolkit.failgen.prompts import answer, question

    examples = Path(__file__).resolve().parents[2] / "assets" / "aha" / "examples" / "samples.jsonl"
    grids = [s.image for s in load_samples(examples)][:8]
    rows = []
    for k in range(4):  # a nominal and a wrong-object grid per scene, as FailGen writes them
        named, handled = PALETTE[k], PALETTE[k + 2]
        why = explanation("wrong_object", f"{named} cube", f"{handled} cube", skill="pick")
        for mode, label, grid, expl in (("nominal", "Yes", grids[2 * k], ""),
                                        ("wrong_object", "No", grids[2 * k + 1], why)):
            sub = f"pick up the {named} cube"
            rows.append({"type": "aha.sample", "sample_id": f"stack-s{k}-{mode}/0", "episode_id": f"stack-s{k}-{mode}",
                         "task": "stack", "mode": mode, "seed": k, "subtask_index": 0, "subtask": sub,
                         "image": str(grid), "question": question(sub), "answer": answer(label, expl),
                         "label": label, "explanation": expl, "grid_rows": ["front", "overhead", "wrist"]})
    data = tmp_path / "samples.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    texts = [t for r in rows for t in (r["question"], r["answer"])] + [question(f"pick up the {c} cube")
                                                                       for c in PALETTE]
    build_tiny_vlm(tmp_path / "tiny", texts, TinySpec(image_size=32, patch_size=8, vision_hidden=32, vision_layers=1,
                                                      text_hidden=32, text_layers=1), seed=0)
    common = dict(data=str(data), model=str(tmp_path / "tiny"), full=True, epochs=1, lr=1e-3, batch_size=4,
                  warmup=1, max_steps=3, val_frac=0.0, verdict_weight=5, device="cpu")
    for option in ({"pair_margin": 1.0}, {"bind_aux": 1.0}):
        with pytest.raises(InputError, match="--bind-aux need --hindsight"):
            train(TrainConfig(out=str(tmp_path / "x"), **option, **common))
    with pytest.raises(InputError, match="--bind-layer must be within 1-1"):
        train(TrainConfig(out=str(tmp_path / "x"), hindsight=True, bind_aux=1.0, bind_layer=2, **common))
    summary = train(TrainConfig(out=str(tmp_path / "m"), hindsight=True, pair_margin=1.0, object_aux=1.0,
                                bind_aux=1.0, **common))
    assert summary["twin_pairs"] == 8 and summary["relabelled_samples"] == 8
    log = [json.loads(line) for line in (tmp_path / "m" / "train_log.jsonl").read_text().splitlines()]
    assert all(r["pair_loss"] > 0 and r["colour_loss"] > 0 and r["bind_loss"] > 0 for r in log)
    assert not any("probe_loss" in r for r in log)  # no --vision-aux: the untrained Yes/No head is not logged
    assert not any("colour" in k for k in json.loads((tmp_path / "m" / "config.json").read_text()))


def test_colour_head_on_word_embeddings_pulls_image_tokens_towards_the_colour_word():
    """With the LM's colour-word ids the head scores image tokens against those words' embeddings:
    training it makes the token of the handled cube's colour match that colour word best."""
    import torch

    from toolkit.aha.vision_aux import VisionProbe

    torch.manual_seed(0)

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.multi_modal_projector = torch.nn.Sequential(torch.nn.Linear(8, 16))
            self.embed = torch.nn.Embedding(20, 16)

        def get_input_embeddings(self):
            return self.embed

        def forward(self, x):
            return self.multi_modal_projector(x)

    model = Model()
    ids = torch.tensor([11, 12, 13])
    probe = VisionProbe(model, "cpu", colours=3, colour_ids=ids)
    colours = torch.tensor([0, 1, 2, 2, 1, 0])
    feats = torch.zeros(6, 4, 8)
    feats[torch.arange(6), 1, colours] = 3.0  # one image token shows the handled cube's colour
    opt = torch.optim.Adam(list(model.parameters()), lr=0.05)
    for _ in range(200):
        model(feats)
        probe.loss(torch.full((6,), IGNORE))
        loss = probe.colour_loss(colours)
        opt.zero_grad()
        loss.backward()
        opt.step()
    probe.close()
    tokens = model(feats)[:, 1]
    match = tokens @ model.embed.weight[ids].T
    assert float(loss.detach()) < 0.6 and bool((match.argmax(dim=1) == colours).all())  # chance: ln 3 = 1.10


def test_both_ways_summary_counts_a_detector_that_reads_the_word_apart_from_one_that_does_not():
    from toolkit.aha.pairs import both_ways_summary

    reads = [{"margin_named": -2.0, "margin_handled": 3.0}, {"margin_named": -1.0, "margin_handled": 0.5}]
    blind = [{"margin_named": 1.0, "margin_handled": 1.0}, {"margin_named": -0.5, "margin_handled": -0.5}]
    r, b = both_ways_summary(reads), both_ways_summary(blind)
    assert r["right_both_ways"] == r["verdict_differs"] == 2 and r["mean_diff"] == 3.25
    assert b["right_both_ways"] == b["verdict_differs"] == b["handled_larger"] == 0 and b["mean_abs_diff"] == 0.0
    assert both_ways_summary([])["grids"] == 0
