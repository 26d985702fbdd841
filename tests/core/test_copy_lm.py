"""The copy-head LM: a distribution over the vocabulary, pointing works, generation through the hf: backend
(batched and left-padded) equals step-by-step greedy decoding, and it saves and loads like any model."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def _model(vocab: int = 40):
    from toolkit.core.copy_lm import CopyLlamaConfig, CopyLlamaForCausalLM

    torch.manual_seed(0)
    cfg = CopyLlamaConfig(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
                          pad_token_id=0, bos_token_id=1, eos_token_id=2)
    return CopyLlamaForCausalLM(cfg).eval()


def test_next_token_distribution_sums_to_one_and_the_closed_gate_copies_only_the_context():
    model = _model()
    ids = torch.tensor([[5, 9, 17, 9, 30]])
    with torch.no_grad():
        p = model.log_probs(ids).exp()
        assert torch.allclose(p.sum(-1), torch.ones(1, 5), atol=1e-5)
        model.copy_gate.weight.zero_()
        model.copy_gate.bias.fill_(-30.0)  # gate shut: every next token is copied from the context
        p = model.log_probs(ids).exp()
    for t in range(5):
        seen = set(ids[0, : t + 1].tolist())
        assert p[0, t, sorted(seen)].sum() > 0.999
        assert p[0, t, [v for v in range(40) if v not in seen]].sum() < 1e-3


def test_padding_is_never_pointed_at():
    model = _model()
    ids = torch.tensor([[0, 0, 7, 8, 9]])
    mask = torch.tensor([[0, 0, 1, 1, 1]])
    with torch.no_grad():
        model.copy_gate.bias.fill_(-30.0)
        p = model.log_probs(ids, mask).exp()
    assert p[0, 2:, 0].max() < 1e-3  # the pad id is not in the attended context


def _saved(tmp_path, tiny_llama):
    """A copy model with the tiny Llama's tokenizer, saved as a model directory."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_llama)
    model = _model(vocab=len(tok))
    model.config.pad_token_id = tok.pad_token_id
    model.save_pretrained(tmp_path / "copy")
    tok.save_pretrained(tmp_path / "copy")
    return tmp_path / "copy", tok


def test_saved_model_loads_through_the_hf_backend_and_generates_like_stepwise_greedy(tmp_path, tiny_llama):
    from toolkit.core.llm import from_uri

    path, tok = _saved(tmp_path, tiny_llama)
    llm = from_uri(f"hf:{path}")
    assert type(llm.model).__name__ == "CopyLlamaForCausalLM"
    prompts = [[{"role": "user", "content": "the red cube is on"}], [{"role": "user", "content": "pick"}]]
    batched = [c.text for c in llm.complete_many(prompts, max_tokens=5)]  # one left-padded batch
    single = [llm.complete(m, max_tokens=5).text for m in prompts]
    assert batched == single
    ids = tok(llm.render(prompts[0]), return_tensors="pt",
              add_special_tokens=not getattr(tok, "chat_template", None))["input_ids"]
    with torch.no_grad():
        for _ in range(5):
            ids = torch.cat([ids, llm.model.log_probs(ids)[:, -1].argmax(-1, keepdim=True)], dim=1)
    new = ids[0, -5:].tolist()
    if tok.eos_token_id in new:
        new = new[: new.index(tok.eos_token_id)]
    assert single[0] == tok.decode(new, skip_special_tokens=True)


def test_cached_decode_matches_the_full_recompute_and_rows_sample_independently_of_their_batch():
    model = _model()
    ids = torch.tensor([[0, 0, 5, 9, 17], [3, 9, 11, 4, 30]])
    mask = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])
    with torch.no_grad():
        tokens, logp = model.decode(ids, mask, 6)
        for row in range(2):  # greedy with the cache == argmax of the cache-less log-probs, step by step
            seq = ids[row: row + 1, int((mask[row] == 0).sum()):]
            for step in range(6):
                full = model.log_probs(seq)[:, -1]
                assert int(full.argmax(-1)) == int(tokens[row, step])
                assert abs(float(full[0, tokens[row, step]]) - float(logp[row, step])) < 1e-4
                seq = torch.cat([seq, tokens[row: row + 1, step: step + 1]], dim=1)
        both, _ = model.decode(ids, mask, 6, temperature=1.0, seeds=[11, 12])
        alone, _ = model.decode(ids[1:], mask[1:], 6, temperature=1.0, seeds=[12])
        again, _ = model.decode(ids, mask, 6, temperature=1.0, seeds=[11, 12])
        other, _ = model.decode(ids, mask, 6, temperature=1.0, seeds=[13, 14])
    assert torch.equal(both[1], alone[0]) and torch.equal(both, again)
    assert not torch.equal(both, other)
    with torch.no_grad():  # row 0 ends at its third token and leaves the batch; row 1 goes on unchanged
        eos = int(tokens[0, 2])
        assert eos not in tokens[1, :4].tolist()
        ended, _ = model.decode(ids, mask, 6, eos_token_id=eos)
    assert ended[0, :3].tolist() == tokens[0, :3].tolist() and set(ended[0, 3:].tolist()) <= {eos}
    stop = next((i for i, t in enumerate(tokens[1].tolist()) if t == eos), 6)
    assert ended[1, :stop].tolist() == tokens[1, :stop].tolist()


def test_hf_backend_samples_a_copy_model_in_batches_as_it_does_one_by_one(tmp_path, tiny_llama):
    from toolkit.core.llm import from_uri

    path, _ = _saved(tmp_path, tiny_llama)
    prompts = [[{"role": "user", "content": "the red cube is on"}], [{"role": "user", "content": "pick"}],
               [{"role": "user", "content": "place the blue one"}]]
    batched = from_uri(f"hf:{path}?batch_size=2", seed=5)
    single = from_uri(f"hf:{path}", seed=5)
    many = [c.text for c in batched.complete_many(prompts, temperature=1.0, max_tokens=8)]
    one = [single.complete(m, temperature=1.0, max_tokens=8).text for m in prompts]
    assert many == one and len(set(many)) > 1
    assert batched.usage.calls == 3
