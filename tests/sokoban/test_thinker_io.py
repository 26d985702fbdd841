"""Thinker-format import: a synthetic DRCNet state dict runs as the equations say; export -> import is exact."""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn.functional as F

from toolkit.sokoban.thinker_io import from_thinker, to_thinker

C, D, N, S = 4, 3, 3, 8  # channels, layers, ticks, grid side (Boxoban 10x10 without its border)


def _synthetic(seed: int = 0) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)

    def r(*shape):
        return torch.randn(*shape, generator=g) * 0.3

    sd = {"encoder.0.weight": r(C, 7, 3, 3), "encoder.0.bias": r(C),
          "final_layer.weight": r(256, 2 * C * S * S) * 0.2, "final_layer.bias": r(256),
          "policy.weight": r(5, 256), "policy.bias": r(5), "baseline.weight": r(1, 256), "baseline.bias": r(1),
          "norm_low": torch.zeros(7, S, S), "norm_high": torch.ones(7, S, S), "kl_beta": torch.tensor(1.0)}
    for k in range(D):
        sd[f"core.layers.{k}.main.weight"] = r(5 * C, 4 * C, 3, 3)
        sd[f"core.layers.{k}.main.bias"] = r(5 * C)
        sd[f"core.layers.{k}.proj.weight"] = r(C, 1, 2, 1)
        sd[f"core.layers.{k}.proj.bias"] = r(C)
    return sd


def test_synthetic_thinker_state_dict_matches_equations():
    sd = _synthetic()
    agent = from_thinker(sd, ticks=N)
    assert (agent.cfg.depth, agent.cfg.ticks, agent.cfg.channels, agent.cfg.grid) == (D, N, C, (S, S))
    obs = (torch.rand(3, 3, 7, S, S, generator=torch.Generator().manual_seed(5)) > 0.7).float()
    state, carried = agent.initial_state(3), None
    for t in range(3):  # three env steps: the recurrent state carries over
        with torch.no_grad():
            logits, value, state = agent(obs[t], state)
        carried = _step(sd, obs[t], carried)
        want_logits, want_value = carried[2]
        assert torch.allclose(logits, want_logits, atol=1e-5) and torch.allclose(value, want_value, atol=1e-5)


def _step(sd, obs, carried):
    """One env step of DRC(D, N) written out from the method's equations, independently of toolkit.sokoban.drc."""
    B = obs.shape[0]
    h, c = ([torch.zeros(B, C, S, S) for _ in range(D)], [torch.zeros(B, C, S, S) for _ in range(D)]) \
        if carried is None else carried[:2]
    h, c = list(h), list(c)
    x = F.relu(F.conv2d(obs / sd["norm_high"], sd["encoder.0.weight"], sd["encoder.0.bias"], padding=1))
    for _ in range(N):
        for d in range(D):
            below = h[d - 1] if d > 0 else h[D - 1]
            pooled = torch.cat([h[d].mean((2, 3), keepdim=True), h[d].amax((2, 3), keepdim=True)], dim=2)
            inject = F.conv2d(pooled, sd[f"core.layers.{d}.proj.weight"], sd[f"core.layers.{d}.proj.bias"],
                              groups=C).expand(-1, -1, S, S)
            z = F.conv2d(torch.cat([x, below, h[d], inject], 1), sd[f"core.layers.{d}.main.weight"],
                         sd[f"core.layers.{d}.main.bias"], padding=1)
            i, f, o, gg, _attn = z.split(C, dim=1)
            c[d] = torch.sigmoid(f) * c[d] + torch.sigmoid(i) * torch.tanh(gg)
            h[d] = torch.sigmoid(o) * torch.tanh(c[d])
    z = F.relu(F.linear(torch.cat([x, h[-1]], 1).flatten(1), sd["final_layer.weight"], sd["final_layer.bias"]))
    head = (F.linear(z, sd["policy.weight"], sd["policy.bias"]),
            F.linear(z, sd["baseline.weight"], sd["baseline.bias"]).squeeze(-1))
    return h, c, head


def test_export_import_bit_identical():
    agent = from_thinker(_synthetic(1), ticks=N)
    again = from_thinker(to_thinker(agent), ticks=N)
    for (k, a), (k2, b) in zip(agent.state_dict().items(), again.state_dict().items(), strict=True):
        assert k == k2 and torch.equal(a, b)


def test_import_cli_and_bad_inputs(reason, tmp_path):
    from safetensors.torch import save_file

    sd = _synthetic(2)
    src = tmp_path / "ckp.safetensors"
    save_file(sd, str(src))
    res = reason("sokoban", "import", "--thinker", str(src), "-o", str(tmp_path / "drc"))
    assert res.returncode == 0, res.stderr
    rec = json.loads(res.stdout.strip().splitlines()[-1])
    assert rec["type"] == "sokoban.imported" and rec["depth"] == D and rec["grid"] == [S, S]
    # export back to the Thinker form and compare tensors exactly
    res = reason("sokoban", "export", "--agent", str(tmp_path / "drc"), "--thinker", str(tmp_path / "back.safetensors"))
    assert res.returncode == 0, res.stderr
    from safetensors.torch import load_file

    back = load_file(str(tmp_path / "back.safetensors"))
    for k in back:
        want = sd[k][:4 * C] if ".main." in k else sd[k]
        assert torch.equal(back[k][:4 * C] if ".main." in k else back[k], want), k



def test_pickle_without_trust_is_refused(tmp_path, capsys, monkeypatch):
    from tests.sokoban.test_cli import _main

    pickle = tmp_path / "ckp.tar"
    torch.save({"actor_net_state_dict": _synthetic(2)}, str(pickle))
    code, out, err = _main(capsys, monkeypatch, "sokoban", "import", "--thinker", str(pickle),
                           "-o", str(tmp_path / "p"))
    assert code == 2 and out == "" and "--trust-pickle" in err and err.count("\n") == 1
    assert not (tmp_path / "p").exists()


def test_pickle_with_trust_and_bad_shapes(tmp_path):
    from toolkit.core.errors import InputError
    from toolkit.sokoban.thinker_io import load_thinker_file

    sd = _synthetic(2)
    torch.save({"actor_net_state_dict": sd, "step": 250_000_000}, str(tmp_path / "ckp.tar"))
    loaded = load_thinker_file(tmp_path / "ckp.tar", trust_pickle=True)
    assert all(torch.equal(loaded[k], sd[k]) for k in sd)
    bad = dict(sd)
    bad["core.layers.1.main.weight"] = bad["core.layers.1.main.weight"][:, :3 * C]
    with pytest.raises(InputError, match=r"core\.layers\.1\.main\.weight has shape"):
        from_thinker(bad)
    (tmp_path / "junk.tar").write_bytes(b"not a checkpoint")
    with pytest.raises(InputError, match="not a torch checkpoint"):
        load_thinker_file(tmp_path / "junk.tar", trust_pickle=True)


@pytest.mark.parametrize("key", ["encoder.0.weight", "core.layers.0.proj.weight", "final_layer.weight"])
def test_missing_tensor_is_named(key):
    from toolkit.core.errors import InputError

    sd = _synthetic()
    del sd[key]
    with pytest.raises(InputError, match=key.replace(".", r"\.")):
        from_thinker(sd)
