from tests.aha.test_pairs import _scenes
from toolkit.aha.binding import CHANCE, BindingHead, binding_targets, word_position
from toolkit.aha.pairs import twin_pairs
from toolkit.aha.train import TrainConfig


def test_binding_target_is_the_named_colour_word_and_whether_that_object_was_handled():
    samples = _scenes(2)  # scene 0: the sub-task names red, the wrong-object run handled yellow
    by_id = {samples[i].sample_id: t for i, t in binding_targets(samples, twin_pairs(samples)).items()}
    assert by_id == {"stack-s0-wrong_object/0": ("red", 0), "stack-s0-wrong_object/0#handled": ("yellow", 1),
                     "stack-s0-nominal/0": ("red", 1), "stack-s0-nominal/0#other": ("yellow", 0),
                     "stack-s1-wrong_object/0": ("blue", 0), "stack-s1-wrong_object/0#handled": ("purple", 1),
                     "stack-s1-nominal/0": ("blue", 1), "stack-s1-nominal/0#other": ("purple", 0)}


def test_word_position_is_the_last_prompt_occurrence_not_one_in_the_answer():
    import torch

    item = {"input_ids": torch.tensor([1, 7, 9, 7, 3, 7, 2]), "labels": torch.tensor([-100] * 5 + [7, 2])}
    assert word_position(item, 7) == 3
    assert word_position(item, 8) == -1


def test_binding_head_reads_the_chosen_layer_and_position_and_is_off_by_default():
    import torch

    torch.manual_seed(0)
    head = BindingHead(4, layer=1, device="cpu")
    states = (torch.zeros(2, 5, 4), torch.randn(2, 5, 4, requires_grad=True))
    loss = head.loss(states, [0, 1], [2, 4], [1, 0])
    loss.backward()
    grad = states[1].grad.abs().sum(dim=-1)
    assert grad[0, 2] > 0 and grad[1, 4] > 0 and float(grad.sum() - grad[0, 2] - grad[1, 4]) == 0.0
    empty = head.loss(states, [], [], [])
    assert float(empty) == 0.0 and empty.requires_grad
    with torch.no_grad():
        head.linear.weight.zero_()
        head.linear.bias.zero_()
    assert abs(float(head.loss(states, [0, 1], [2, 4], [1, 0])) - CHANCE) < 1e-6
    assert TrainConfig(data="d", model="m", out="o").bind_aux == 0.0  # the shipped recipe has no binding head
