import pytest

from toolkit.core.errors import InputError
from toolkit.microtheory.verify import NLIVerifier, make_verifier


def _tiny_nli(path, favour: int):
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    from tests.support.tiny_models import build_word_tokenizer

    tok = build_word_tokenizer("a fish has fins trout is kind of".split())
    config = BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, num_labels=3, pad_token_id=tok.pad_token_id,
                        id2label={0: "contradiction", 1: "entailment", 2: "neutral"},
                        label2id={"contradiction": 0, "entailment": 1, "neutral": 2})
    torch.manual_seed(0)
    model = BertForSequenceClassification(config)
    with torch.no_grad():
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(torch.tensor([0.0, 0.0, 0.0]))
        model.classifier.bias[favour] = 5.0
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


def test_local_nli_directory_uses_the_entailment_label(tmp_path):
    yes = make_verifier(f"nli:{_tiny_nli(tmp_path / 'yes', 1)}", None)
    no = NLIVerifier(_tiny_nli(tmp_path / "no", 2))
    assert yes.entails(["A trout is a kind of fish."], "A trout has fins.") is True
    assert no.entails(["A trout is a kind of fish."], "A trout has fins.") is False
    assert no.entails([], "x") is False and yes.calls == 1


def test_nli_errors(tmp_path):
    with pytest.raises(InputError, match="no such NLI model directory"):
        NLIVerifier(tmp_path / "missing")
