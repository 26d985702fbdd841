import copy

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from toolkit.matcha.adapt import TargetView, matcha_adapt
from toolkit.matcha.gprgnn import GPRGNN
from toolkit.matcha.pic import pic_loss
from toolkit.matcha.tta import adanpc, entropy, t3a, tent


def test_pic_is_one_for_uniform_and_zero_for_tight_one_hot_clusters():
    z = torch.randn(40, 5)
    assert abs(pic_loss(z, torch.full((40, 2), 0.5)).item() - 1.0) < 1e-5
    centres = torch.randn(3, 5)
    y = torch.arange(30) % 3
    assert pic_loss(centres[y], F.one_hot(y, 3).float()).item() < 1e-6


def test_pic_gradient_reaches_gamma_only(tiny_pair, tiny_model):
    model = copy.deepcopy(tiny_model[0]).eval()
    for p in model.parameters():
        p.requires_grad_(True)
    _, target = tiny_pair
    x = torch.as_tensor(target.x)
    with torch.no_grad():
        prob = model(x, target.edge_index).softmax(1)
    model.requires_grad_(False)
    model.hop_weights.requires_grad_(True)
    pic_loss(model.featurize(x, target.edge_index), prob).backward()
    assert model.hop_weights.grad is not None and model.hop_weights.grad.abs().sum() > 0
    assert all(p.grad is None for n, p in model.named_parameters() if n != "hop_weights")


def test_gamma_starts_at_e0_and_matcha_changes_nothing_else(tiny_pair, tiny_model):
    fresh = GPRGNN(10, K=4)
    assert fresh.hop_weights.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    model, _, memory = tiny_model
    before = {k: v.clone() for k, v in model.state_dict().items()}
    res = matcha_adapt(model, tiny_pair[1], "tent", rounds=3, memory=memory)
    after = model.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)  # the caller's model is untouched
    assert res.gamma_after != res.gamma_before
    adapted = copy.deepcopy(model)
    adapted.hop_weights.data = torch.tensor(res.gamma_after)
    changed = [k for k, v in adapted.state_dict().items() if not torch.equal(v, before[k])]
    assert changed == ["hop_weights"]


def test_tent_changes_only_bn_affine_and_lowers_entropy(tiny_pair, tiny_model):
    model = tiny_model[0]
    view = TargetView(copy.deepcopy(model).eval(), tiny_pair[1])
    params, forward = view.tent_forward()
    start = {k: v.clone() for k, v in view.model.state_dict().items()}
    with torch.no_grad():
        e0 = entropy(forward()).mean().item()
    logits = tent(view, lr=0.1, steps=1)
    assert entropy(logits).mean().item() < e0
    assert all(torch.equal(start[k], v) for k, v in view.model.state_dict().items())
    # the generic path (any protocol model) adapts the same BN parameters of a copy
    view.fast = False
    params, _ = view.tent_forward()
    assert [tuple(p.shape) for p in params] == [(32,), (32,)]


def test_t3a_matches_hand_computation():
    torch.manual_seed(0)
    clf = torch.nn.Linear(4, 2, bias=False)
    z = torch.randn(12, 4)
    sup = torch.cat([clf.weight, z])
    logits = clf(sup)
    lab, ent = logits.argmax(1).numpy(), entropy(logits).detach().numpy()
    keep = []
    for c in range(2):
        idx = np.flatnonzero(lab == c)
        keep += list(idx[np.argsort(ent[idx], kind="stable")][:3])
    s = sup.detach().numpy()[keep]
    s = s / np.linalg.norm(s, axis=1, keepdims=True)
    w = np.stack([s[lab[keep] == c].sum(0) for c in range(2)], axis=1)
    w = w / np.linalg.norm(w, axis=0, keepdims=True)
    assert np.allclose(t3a(z, clf, filter_k=3).numpy(), z.numpy() @ w, atol=1e-5)
    # the temperature divides the logits: same predictions, sharper pseudo-labels
    assert np.allclose(t3a(z, clf, filter_k=3, temperature=0.25).numpy(), 4 * z.numpy() @ w, atol=1e-5)


def test_adanpc_matches_hand_computation():
    torch.manual_seed(1)
    mem, mem_y, z = torch.randn(20, 3), torch.randint(0, 2, (20,)), torch.randn(5, 3)
    out = adanpc(z, mem, mem_y, 2, k=4, tau=0.5).exp().numpy()
    mn = (mem / mem.norm(dim=1, keepdim=True)).numpy()
    for i in range(5):
        zi = z[i].numpy() / np.linalg.norm(z[i].numpy())
        sims = mn @ zi
        top = np.argsort(-sims)[:4]
        w = np.exp(sims[top] / 0.5)
        w /= w.sum()
        expect = np.array([w[mem_y.numpy()[top] == c].sum() for c in range(2)])
        assert np.allclose(out[i], expect, atol=1e-5)


def test_matcha_raises_accuracy_under_homophily_shift(tiny_pair, tiny_model):
    """End to end at n=1000, p=200, μ=0.1 (source accuracy >= 85%): Matcha+ERM >= ERM + 5 points."""
    model, info, memory = tiny_model
    assert info["train_accuracy"] >= 0.85
    res = matcha_adapt(model, tiny_pair[1], "erm", rounds=50, memory=memory)
    base, final = res.trace[0]["accuracy"], res.trace[-1]["accuracy"]
    assert final >= base + 0.05, (base, final)


def test_cosine_step_settles_gamma_and_keeps_the_gain(tiny_pair, tiny_model):
    """schedule="cosine" anneals the step on γ to ~0 (torch's CosineAnnealingLR), so the last rounds barely move γ,
    where the paper's constant step still moves it by a full step; the gain over the base TTA stays."""
    model, _, memory = tiny_model
    runs = {s: matcha_adapt(model, tiny_pair[1], "erm", rounds=50, schedule=s, stop="last", memory=memory)
            for s in ("constant", "cosine")}

    def last_move(res):
        return max(abs(a - b) for a, b in zip(res.trace[-1]["gamma"], res.trace[-2]["gamma"], strict=True))

    cos, const = runs["cosine"], runs["constant"]
    assert cos.schedule == "cosine" and cos.chosen_round == 49 and cos.trace[0]["step"] == 1.0
    assert cos.trace[-2]["step"] < 0.01 and const.trace[-2]["step"] == 1.0
    assert last_move(cos) < 0.05 * last_move(const)
    assert cos.trace[-1]["accuracy"] >= cos.trace[0]["accuracy"] + 0.05



def test_pic_stop_is_the_default_and_outputs_the_round_of_lowest_pic(tiny_pair, tiny_model):
    model, _, memory = tiny_model
    res = matcha_adapt(model, tiny_pair[1], "erm", rounds=20, memory=memory)
    assert (res.schedule, res.stop) == ("constant", "pic")
    pics = [row["pic"] for row in res.trace]
    assert res.chosen_round == pics.index(min(pics)) and res.gamma_after == res.trace[res.chosen_round]["gamma"]
    with pytest.raises(ValueError, match="schedule"):
        matcha_adapt(model, tiny_pair[1], "erm", rounds=2, schedule="linear")
