from __future__ import annotations

import pytest
import torch

from toolkit.core.errors import InputError
from toolkit.steer.activations import read_last_token
from toolkit.steer.layers import find_layers, parse_layers

TEXTS = ["math 3 + 4 =", "seq 1 2 3 4 next ? 5", "ann > bob . bob > cat . is ann > cat ? yes",
         "math ( ( 6 + 7 ) + 8 ) - 4 ="]


def test_left_padded_batch_equals_single_prompts(any_model):
    model, tok = any_model
    layers = list(range(len(find_layers(model))))
    batched = read_last_token(model, tok, TEXTS, layers, batch_size=4)
    for i, text in enumerate(TEXTS):
        single = read_last_token(model, tok, [text], layers, batch_size=1)
        for layer in layers:
            torch.testing.assert_close(batched[layer][i], single[layer][0], atol=2e-5, rtol=1e-4)


def test_reads_block_output_of_last_real_token(neox):
    model, tok = neox
    text = TEXTS[1]
    ids = tok(text, add_special_tokens=False, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        hs = model(input_ids=ids, output_hidden_states=True).hidden_states
    got = read_last_token(model, tok, [text, TEXTS[3]], [0, 1], batch_size=2)
    for layer in (0, 1):  # hidden_states[l + 1] is block l's output (the last one is after the final norm)
        torch.testing.assert_close(got[layer][0], hs[layer + 1][0, -1], atol=2e-5, rtol=1e-4)


def test_layer_discovery_and_unsupported_architecture():
    from tests.steer.models import build

    for arch, path in (("neox", "gpt_neox.layers"), ("llama", "model.layers"), ("gpt2", "transformer.h")):
        model, _ = build(arch)
        blocks = find_layers(model)
        assert blocks is eval("model." + path)  # noqa: S307
    opt, tok = build("opt")
    with pytest.raises(InputError, match="unsupported architecture 'opt'.*--layers-path"):
        find_layers(opt)
    assert len(find_layers(opt, "model.decoder.layers")) == 2
    with pytest.raises(InputError, match="--layers-path model.nothing"):
        find_layers(opt, "model.nothing")
    acts = read_last_token(opt, tok, TEXTS[:2], [1], layers_path="model.decoder.layers")
    assert acts[1].shape == (2, 32)


def test_parse_layers():
    assert parse_layers("all", 4) == [0, 1, 2, 3]
    assert parse_layers("1..2", 4) == [1, 2]
    assert parse_layers("3,1,-1", 4) == [1, 3]
    with pytest.raises(InputError, match="out of range"):
        parse_layers("4", 4)
    with pytest.raises(InputError, match="expected indices"):
        parse_layers("x", 4)
