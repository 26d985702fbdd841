"""Fine-tuning a tiny Llama: loss falls, only assistant tokens are labelled, the adapter loads, QLoRA needs CUDA."""

import json
import random

import pytest

from toolkit.core.errors import InputError
from toolkit.selfaware.finetune import encode_example, finetune, read_chat_jsonl


def chat_examples(n=32, seed=0):
    rng = random.Random(seed)
    return [{"messages": [{"role": "user", "content": f"which cube is on the {rng.choice(['table', 'arm'])}"},
                          {"role": "assistant", "content": "red cube"}]} for _ in range(n)]


@pytest.fixture(scope="module")
def lora_run(tiny_llama, tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    summary = finetune(chat_examples(), tiny_llama, out, lora_r=4, lr=1e-2, max_steps=30, epochs=100)
    return out, summary


def test_loss_falls_and_adapter_loads(lora_run, tiny_llama):
    out, summary = lora_run
    assert summary["steps"] == 30
    assert summary["last_loss"] < 0.75 * summary["first_loss"]
    assert (out / "adapter_config.json").is_file()
    from toolkit.core.llm import from_uri

    llm = from_uri(f"hf:{tiny_llama}?adapter={out}")
    msgs = [{"role": "user", "content": "which cube is on the table"}]
    assert llm.complete(msgs, max_tokens=2).text == "red cube"
    # option probabilities in one forward pass, renormalised over the options
    from toolkit.selfaware.probe import option_probs

    probs, method, _ = option_probs(llm, msgs, ["RED", "BLUE"])
    assert method == "forward" and probs["RED"] > 0.6 and abs(sum(probs.values()) - 1) < 1e-9
    base, _, _ = option_probs(from_uri(f"hf:{tiny_llama}"), msgs, ["RED", "BLUE"])
    assert base["RED"] < probs["RED"]


def test_labels_only_on_assistant_tokens(tiny_llama):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_llama)
    ids, labels = encode_example(tok, chat_examples(1)[0]["messages"])
    answer = tok("red cube", add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    assert [x for x in labels if x != -100] == answer
    assert labels[: len(ids) - len(answer)] == [-100] * (len(ids) - len(answer))


def test_bad_chat_lines(tmp_path):
    p = tmp_path / "ft.jsonl"
    p.write_text(json.dumps(chat_examples(1)[0]) + "\nnot json\n" +
                 json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n")
    with pytest.raises(InputError, match=r"ft.jsonl:2: not JSON"):
        read_chat_jsonl(p)
    from toolkit.core.records import BadLines

    bad = BadLines()
    assert len(read_chat_jsonl(p, skip_bad=True, bad=bad)) == 1 and bad.count == 2
    assert "final non-empty assistant turn" in bad.examples[1]


def test_qlora_without_cuda_and_adapter_without_config(tiny_llama, tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: --qlora is allowed")
    with pytest.raises(InputError, match="CUDA") as exc:
        finetune(chat_examples(4), tiny_llama, tmp_path / "r", qlora=True)
    assert exc.value.exit_code == 2
    (tmp_path / "empty").mkdir()
    from toolkit.core.llm import from_uri

    with pytest.raises(InputError, match="adapter_config.json") as exc:
        from_uri(f"hf:{tiny_llama}?adapter={tmp_path / 'empty'}")
    assert exc.value.exit_code == 2
