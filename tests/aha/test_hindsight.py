from pathlib import Path

from toolkit.aha.hindsight import hindsight, parse_wrong_object
from toolkit.aha.samples import Sample
from toolkit.failgen.prompts import answer, explanation, question


def _sample(episode, index, subtask, label, expl="", mode=None):
    mode = mode or episode.rsplit("-", 1)[1]
    return Sample(f"{episode}/{index}", Path(f"{episode}/grid_{index}.png"), question(subtask),
                  answer(label, expl), episode_id=episode, task=episode.split("-s")[0], mode=mode,
                  subtask=subtask, subtask_index=index, label=label, explanation=expl)


def test_every_wrong_object_wording_parses_back_to_its_objects():
    for skill in ("pick", "push", "grasp_handle"):
        text = explanation("wrong_object", "red drawer", "blue drawer", skill=skill)
        template, named, handled = parse_wrong_object(text + ".")
        assert (named, handled) == ("red drawer", "blue drawer")
        assert template.format(obj=named, other=handled) == text
    assert parse_wrong_object(explanation("slip", "red cube")) is None


def test_relabelled_pairs_flip_the_label_with_the_object_named():
    why = explanation("wrong_object", "blue cube", "purple cube", skill="pick")
    samples = [
        _sample("stack-s3-nominal", 0, "pick up the blue cube", "Yes"),
        _sample("stack-s3-nominal", 1, "stack the blue cube onto the green cube", "Yes"),
        _sample("stack-s3-wrong_object", 0, "pick up the blue cube", "No", why),
        _sample("stack-s3-slip", 0, "pick up the blue cube", "Yes"),
        _sample("stack-s4-wrong_object", 0, "lift the red cube off the table", "No",
                explanation("wrong_object", "red cube", "cyan cube", skill="pick")),  # no nominal twin
    ]
    out = {s.sample_id: s for s in hindsight(samples)}
    assert set(out) == {"stack-s3-wrong_object/0#handled", "stack-s3-nominal/0#other",
                        "stack-s4-wrong_object/0#handled"}
    handled = out["stack-s3-wrong_object/0#handled"]
    assert (handled.subtask, handled.label, handled.answer) == ("pick up the purple cube", "Yes", "Yes")
    assert handled.question == question("pick up the purple cube") and handled.image == samples[2].image
    other = out["stack-s3-nominal/0#other"]
    assert other.subtask == "pick up the purple cube" and other.label == "No"
    assert other.answer == "No, the robot went for the blue cube instead of the purple cube."
    assert other.image == samples[0].image and other.episode_id == "stack-s3-nominal"
    assert all(s.relabelled for s in out.values()) and not any(s.relabelled for s in samples)
    assert hindsight(list(out.values())) == []  # relabelled samples are not relabelled again


def _projector_model(width: int):
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.multi_modal_projector = torch.nn.Sequential(torch.nn.Linear(width, width))

        def forward(self, x):
            return self.multi_modal_projector(x)

    return Model()


def test_vision_probe_skips_relabelled_samples():
    import torch

    from toolkit.aha.vision_aux import IGNORE, VisionProbe

    model = _projector_model(4)
    probe = VisionProbe(model, "cpu")
    feats = torch.randn(2, 3, 4)
    model(feats)
    both = probe.loss(torch.tensor([1, 0]))
    model(feats)
    first = probe.loss(torch.tensor([1, IGNORE]))
    model(feats[:1])
    assert torch.isclose(first, probe.loss(torch.tensor([1]))) and not torch.isclose(first, both)
    model(feats)
    none = probe.loss(torch.tensor([IGNORE, IGNORE]))
    assert float(none.detach()) == 0.0 and none.requires_grad


def test_a_probe_at_chance_is_called_stuck():
    from toolkit.aha.vision_aux import CHANCE, stuck_at_chance

    assert stuck_at_chance(CHANCE) and stuck_at_chance(0.66) and stuck_at_chance(0.9)
    assert not stuck_at_chance(0.5) and not stuck_at_chance(0.2)


def test_a_subtask_conditioned_probe_learns_what_the_image_alone_cannot():
    """Planted wrong-object data: the image shows which cube was handled, the label says whether it is
    the one named. A probe on the image alone stays at chance; the conditioned one learns it."""
    import torch

    from toolkit.aha.vision_aux import CHANCE, SubtaskWords, VisionProbe

    torch.manual_seed(0)
    colours = ["red", "blue", "green", "cyan"]
    handled = torch.randint(0, 4, (256,))
    named = torch.where(torch.rand(256) < 0.5, handled, (handled + torch.randint(1, 4, (256,))) % 4)
    labels = (handled == named).long()
    feats = torch.nn.functional.one_hot(handled, 8).float()[:, None, :] + 0.1 * torch.randn(256, 3, 8)
    subtasks = [f"pick up the {colours[int(k)]} cube" for k in named]
    words = SubtaskWords(subtasks + ["lift the red cube off the table"])
    assert words.ids("Pick up the RED cube!") == [words.index[w] for w in ("pick", "up", "the", "red", "cube")]
    assert words.ids("a purple pyramid") == []
    final = {}
    for name, vocab in (("image", None), ("subtask", words)):
        model = _projector_model(8)
        probe = VisionProbe(model, "cpu", vocab)
        opt = torch.optim.Adam(probe.parameters(), lr=0.05)
        for _ in range(300):
            model(feats)
            loss = probe.loss(labels, subtasks)
            opt.zero_grad()
            loss.backward()
            opt.step()
        final[name] = float(loss.detach())
        probe.close()
    assert final["image"] > CHANCE - 0.05 and final["subtask"] < 0.2, final


def test_a_subtask_probe_without_the_probe_is_refused_before_any_work(tmp_path):
    import pytest

    from toolkit.aha.train import TrainConfig, train
    from toolkit.core.errors import InputError

    with pytest.raises(InputError, match="--vision-aux-subtask needs --vision-aux > 0"):
        train(TrainConfig(data=str(tmp_path / "none.jsonl"), model=str(tmp_path), out=str(tmp_path / "m"),
                          vision_aux=0.0, vision_aux_subtask=True, device="cpu"))
    assert not (tmp_path / "m").exists()
