"""Thinker-format import: a synthetic DRCNet state dict runs as the official forward does; export -> import is exact."""

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
          "norm_low": torch.zeros(7, S, S),
          "norm_high": (1 + torch.arange(7.0) % 3).view(7, 1, 1).expand(7, S, S).contiguous(),
          "kl_beta": torch.tensor(1.0)}
    for k in range(D):
        sd[f"core.layers.{k}.main.weight"] = r(5 * C, 4 * C, 3, 3)
        sd[f"core.layers.{k}.main.bias"] = r(5 * C)
        sd[f"core.layers.{k}.proj.weight"] = r(C, 1, 2, 1)
        sd[f"core.layers.{k}.proj.bias"] = r(C)
    return sd


def test_imported_agent_matches_the_official_forward():
    sd = _synthetic()
    agent = from_thinker(sd, ticks=N)
    assert (agent.cfg.depth, agent.cfg.ticks, agent.cfg.channels, agent.cfg.grid) == (D, N, C, (S, S))
    assert agent.cfg.encoder_relu is False
    obs = (torch.rand(3, 3, 7, S, S, generator=torch.Generator().manual_seed(5)) > 0.7).float() * 2
    state, core_state = agent.initial_state(3), _official_initial_state(3)
    for t in range(3):  # three env steps: the recurrent state carries over
        with torch.no_grad():
            logits, value, state = agent(obs[t], state)
        want_logits, want_value, core_state = _official_step(sd, obs[t], core_state, done=t == 0)
        assert torch.allclose(logits, want_logits, atol=1e-5) and torch.allclose(value, want_value, atol=1e-5)
    # the reference can tell the networks apart: a ReLU on the encoder output changes the logits
    agent.cfg.encoder_relu = True
    with torch.no_grad():
        relu_logits, _, _ = agent(obs[0], agent.initial_state(3))
    want_logits, _, _ = _official_step(sd, obs[0], _official_initial_state(3), done=True)
    assert (relu_logits - want_logits).abs().max() > 1e-2


# The official forward, written from thinker/thinker/actor_net.py (DRCNet.forward, normalize) and
# thinker/thinker/core/rnn.py (ConvAttnLSTM.forward_single, ConvAttnLSTMCell.forward, proj_max_mean with
# attn=False, pool_inject=True), independently of toolkit.sokoban.drc. The core state is the official tuple
# (h_0, c_0, h_1, c_1, ...).

def _official_initial_state(B):
    return tuple(torch.zeros(B, C, S, S) for _ in range(2 * D))


def _proj_max_mean(out, weight, bias):
    out_mean = torch.mean(out, dim=(-1, -2), keepdim=True)
    out_max = torch.max(torch.max(out, dim=-1, keepdim=True)[0], dim=-2, keepdim=True)[0]
    proj_in = torch.cat([out_mean, out_max], dim=-2)
    return F.conv2d(proj_in, weight, bias, groups=C).broadcast_to(out.shape)


def _official_cell(sd, n, input, h_cur, c_cur):
    combined = torch.cat([input, h_cur], dim=1)
    combined = torch.cat([combined, _proj_max_mean(h_cur, sd[f"core.layers.{n}.proj.weight"],
                                                   sd[f"core.layers.{n}.proj.bias"])], dim=1)
    combined_conv = F.conv2d(combined, sd[f"core.layers.{n}.main.weight"], sd[f"core.layers.{n}.main.bias"],
                             padding=1)
    cc_i, cc_f, cc_o, cc_g, cc_a = torch.split(combined_conv, C, dim=1)
    i, f, o, g = torch.sigmoid(cc_i), torch.sigmoid(cc_f), torch.sigmoid(cc_o), torch.tanh(cc_g)
    c_next = f * c_cur + i * g
    h_next = o * torch.tanh(c_next)
    return h_next, c_next


def _official_forward_single(sd, x, core_state, reset):
    b = x.shape[0]
    out = core_state[(D - 1) * 2] * (1 - reset).view(b, 1, 1, 1)  # h_cur on last layer
    new_core_state = []
    for n in range(D):
        cell_input = torch.concat([x, out], dim=1)
        h_cur = core_state[n * 2 + 0] * (1 - reset.view(b, 1, 1, 1))
        c_cur = core_state[n * 2 + 1] * (1 - reset.view(b, 1, 1, 1))
        h_next, c_next = _official_cell(sd, n, cell_input, h_cur, c_cur)
        new_core_state += [h_next, c_next]
        out = h_next
    return out, tuple(new_core_state)


def _official_step(sd, obs, core_state, done):
    x = (obs.float() - sd["norm_low"]) / (sd["norm_high"] - sd["norm_low"])
    x_enc = F.conv2d(x, sd["encoder.0.weight"], sd["encoder.0.bias"], padding=1)  # encoder: one conv, no ReLU
    reset = torch.full((obs.shape[0],), float(done))
    for t in range(N):
        if t > 0:
            reset = torch.zeros_like(reset)
        output, core_state = _official_forward_single(sd, x_enc, core_state, reset)
    core_output = torch.flatten(torch.cat([x_enc, output], dim=1), 1)
    final_out = F.relu(F.linear(core_output, sd["final_layer.weight"], sd["final_layer.bias"]))
    return (F.linear(final_out, sd["policy.weight"], sd["policy.bias"]),
            F.linear(final_out, sd["baseline.weight"], sd["baseline.bias"]).squeeze(-1), core_state)


def test_agent_config_encoder_relu_default_and_roundtrip(tmp_path):
    from toolkit.core.errors import InputError
    from toolkit.sokoban.drc import AgentConfig, DRCAgent, load_agent, save_agent

    save_agent(DRCAgent(AgentConfig(depth=1, ticks=1, channels=4, grid=(6, 6), hidden=16, encoder_relu=False)),
               tmp_path / "raw")
    assert load_agent(tmp_path / "raw").cfg.encoder_relu is False
    cfg_path = tmp_path / "raw" / "config.json"
    raw = json.loads(cfg_path.read_text())
    del raw["encoder_relu"]  # a config written before the key existed: the agents trained with the ReLU
    cfg_path.write_text(json.dumps(raw))
    assert load_agent(tmp_path / "raw").cfg.encoder_relu is True
    raw["encoder_relu"] = "no"
    cfg_path.write_text(json.dumps(raw))
    with pytest.raises(InputError, match="encoder_relu"):
        load_agent(tmp_path / "raw")
    with pytest.raises(InputError, match="ReLU on its encoder output"):  # its Thinker form would act differently
        to_thinker(DRCAgent(AgentConfig(depth=1, ticks=1, channels=4, grid=(6, 6), hidden=16)))


def test_shipped_agents_keep_the_encoder_relu():
    from toolkit.core.assets import asset_path
    from toolkit.sokoban.drc import load_agent

    for name in ("agent", "ff_agent"):
        assert load_agent(asset_path(f"sokoban/{name}")).cfg.encoder_relu is True


def test_export_import_bit_identical():
    agent = from_thinker(_synthetic(1), ticks=N)
    again = from_thinker(to_thinker(agent), ticks=N)
    for (k, a), (k2, b) in zip(agent.state_dict().items(), again.state_dict().items(), strict=True):
        assert k == k2 and torch.equal(a, b)


def test_import_cli_and_bad_inputs(reason, tmp_path):
    from safetensors.torch import save_file

    sd = {**_synthetic(2), "norm_high": torch.ones(7, S, S)}  # unscaled: the export writes no observation scaling
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
