"""The training-only patch grounding loss: targets from a chain's box, and a few steps on a fixed scene make
the image tokens say where the asked sign is."""

from __future__ import annotations

import pytest

from toolkit.core.patch_aux import CLASS, MASK, NO_TARGET, QUERY, patch_mask


def test_patch_mask_marks_the_cells_the_box_covers():
    # 1024 x 768 on a 4 x 4 grid: cells are 256 x 192 px
    mask = patch_mask([300, 200, 800, 250], (1024, 768), 4)
    assert [i for i, v in enumerate(mask) if v] == [5, 6, 7]  # row 1, columns 1-3
    assert sum(patch_mask([0, 0, 1024, 768], (1024, 768), 4)) == 16
    assert patch_mask([10, 10, 20, 20], (100, 50), 2) == [1.0, 0.0, 0.0, 0.0]
    assert sum(patch_mask([40, 0, 60, 10], (100, 50), 2)) == 2  # straddles the column boundary


def _red_sign_scene(cell: int):
    """A 1024 x 768 grey scene with a red sign in the middle of one quadrant (large enough for a 32-px tower)."""
    from PIL import Image, ImageDraw

    from toolkit.cogcom.scenes import COLORS

    scene = Image.new("RGB", (1024, 768), (230, 230, 230))
    x, y = 128 + 512 * (cell % 2), 96 + 384 * (cell // 2)
    box = [x, y, x + 256, y + 192]
    ImageDraw.Draw(scene).rectangle(box, fill=COLORS["red"])
    return scene, box


def _examples(tiny_cogcom_model, scenes):
    from toolkit.cogcom.tiny import conversation, encode, question_color, turn_examples
    from toolkit.core.vlm import load_vlm

    vlm = load_vlm(tiny_cogcom_model, device="cpu", trainable=True)
    vlm.tokenizer.padding_side = "right"
    question = "What does the red sign say?"
    items = []
    for scene, box in scenes:
        messages = conversation(scene, question, box, "TEXT", grid=2)
        for m, reply in turn_examples(messages, (1, 3)):
            items.append(encode(vlm, m, reply, question_color(question), 2))
    return vlm, items


def test_encoded_targets_follow_the_images_of_each_turn(red_sign_scenes, tiny_cogcom_model):
    from toolkit.cogcom.tiny import COLOR_CLASSES

    _, items = _examples(tiny_cogcom_model, [(scene, item["boxes"][0]) for item, scene in red_sign_scenes])
    first, second = items[0], items[1]  # the coarse turn (scene) and the fine turn (scene, img_1)
    red = COLOR_CLASSES.index("red")
    assert first[CLASS].tolist() == [red] and first[MASK].shape == (1, 4)
    assert second[CLASS].tolist() == [red, red] and second["pixel_values"].shape[0] == 2
    assert first[MASK][0].sum() >= 1 and first[MASK][0].sum() < 4  # the sign is small in the scene


def test_box_query_is_the_position_before_the_first_coordinate(red_sign_scenes, tiny_cogcom_model):
    from toolkit.cogcom.tiny import conversation, encode, question_color, turn_examples
    from toolkit.core.vlm import load_vlm

    vlm = load_vlm(tiny_cogcom_model, device="cpu")
    item, scene = red_sign_scenes[0]
    messages = conversation(scene, item["question"], item["boxes"][0], "TEXT", grid=2)
    color = question_color(item["question"])
    (m1, r1), (m5, r5) = turn_examples(messages, (1, 5))
    crop, ocr = encode(vlm, m1, r1, color, 2), encode(vlm, m5, r5, color, 2)
    q = int(crop[QUERY][0])
    words = vlm.tokenizer.convert_ids_to_tokens(crop["input_ids"].tolist())
    assert words[q] == "[" and words[q + 1] == r1.split("[[")[1][:3]
    assert int(crop["labels"][q + 1]) != -100 and int(crop["labels"][q - 8]) == -100  # inside the reply
    assert int(ocr[QUERY][0]) == -1


@pytest.mark.slow
def test_a_few_steps_lower_the_patch_loss_and_the_model_call_ignores_targets(tiny_cogcom_model):
    import torch

    from toolkit.core.patch_aux import PatchGrounding
    from toolkit.core.vlm_train import collate, forward

    vlm, items = _examples(tiny_cogcom_model, [_red_sign_scene(c) for c in range(4)])
    torch.manual_seed(0)
    model = vlm.model
    model.train()
    aux = PatchGrounding(model, 8, "cpu")
    params = [p for p in model.parameters() if p.requires_grad] + aux.parameters()
    batch = collate(items, vlm.tokenizer.pad_token_id)
    losses = _train(model, batch, aux.loss, params, 30)  # the aux_ keys would break the model call if they reached it
    aux.close()
    assert losses[-1] < 0.5 * losses[0], losses
    # the box-writing attention moves onto the sign's patches
    from toolkit.core.patch_aux import AttentionGrounding

    attention = AttentionGrounding(model)
    att = _train(model, batch, attention.loss, [p for p in model.parameters() if p.requires_grad], 20)
    attention.close()
    assert att[-1] < 0.5 * att[0], att
    assert model.config._attn_implementation != "eager"  # given back
    # an image without a target trains nothing
    none = dict(batch, **{CLASS: torch.full_like(batch[CLASS], NO_TARGET)})
    aux = PatchGrounding(model, 8, "cpu")
    forward(model, none)
    assert float(aux.loss(none).detach()) == 0.0
    aux.close()


def _train(model, batch, loss_of, params, steps):
    """Adam steps on one auxiliary loss; the loss after each step's forward."""
    import torch

    from toolkit.core.vlm_train import forward

    opt = torch.optim.Adam(params, lr=1e-2)
    losses = []
    for _ in range(steps):
        forward(model, batch)
        loss = loss_of(batch)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(float(loss.detach()))
    return losses


def test_the_readout_loss_reaches_the_projector_and_falls_on_a_planted_case(tiny_cogcom_model):
    # the box-writing heads' output, read through the output words, names the coordinate word; each scene
    # token's value names its own column / row word
    import torch

    from toolkit.core.patch_aux import ReadoutGrounding, find_projector_input
    from toolkit.core.vlm_train import collate, forward

    vlm, items = _examples(tiny_cogcom_model, [_red_sign_scene(c) for c in range(4)])
    torch.manual_seed(0)
    model = vlm.model
    model.train()
    words = vlm.tokenizer.convert_tokens_to_ids(["000", "500"])  # the word of grid column / row 0 and 1
    readout = ReadoutGrounding(model, words)
    batch = collate(items, vlm.tokenizer.pad_token_id)
    forward(model, batch)
    readout.loss(batch).backward()
    projector = find_projector_input(model)
    assert any(float(p.grad.abs().sum()) > 0 for p in projector.parameters())
    assert readout.parts["readout_loss"] > 0 and readout.parts["position_loss"] > 0
    model.zero_grad(set_to_none=True)
    losses = _train(model, batch, readout.loss, [p for p in model.parameters() if p.requires_grad], 30)
    readout.close()
    assert losses[-1] < 0.5 * losses[0], losses
    forward(model, batch)  # unhooked: nothing is captured any more
    assert readout._mixed is None and readout._values is None
