import pytest

from toolkit.core.errors import InputError
from toolkit.core.llm import from_uri


def test_hf_backend_generates(tiny_llama):
    llm = from_uri(f"hf:{tiny_llama}")
    out = llm.complete([{"role": "user", "content": "the red cube is on"}], max_tokens=6)
    assert len(out.texts) == 1 and isinstance(out.text, str)
    assert 0 < out.completion_tokens <= 6
    assert len(out.logprobs[0]) == out.completion_tokens
    assert all(lp <= 0 for _, lp in out.logprobs[0])
    sampled = llm.complete([{"role": "user", "content": "pick the"}], n=3, temperature=1.0, max_tokens=4)
    assert len(sampled.texts) == 3
    greedy = [llm.complete([{"role": "user", "content": "the"}], max_tokens=5).text for _ in range(2)]
    assert greedy[0] == greedy[1]


def test_hf_backend_rejects_non_model_dir(tmp_path):
    with pytest.raises(InputError, match="no config.json"):
        from_uri(f"hf:{tmp_path}")
    with pytest.raises(InputError, match="no such model directory"):
        from_uri(f"hf:{tmp_path / 'nope'}")


def test_4bit_without_cuda_is_clear(tiny_llama):
    import torch

    if torch.cuda.is_available():
        pytest.skip("CUDA present")
    from toolkit.core.errors import RuntimeFailure

    with pytest.raises(RuntimeFailure, match="needs a CUDA device"):
        from_uri(f"hf:{tiny_llama}?load_in_4bit=1")


def test_corrupted_weights_are_one_line_input_error(tiny_llama, tmp_path):
    import shutil

    broken = tmp_path / "broken"
    shutil.copytree(tiny_llama, broken)
    weights = broken / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])
    with pytest.raises(InputError, match="broken: corrupted weights"):
        from_uri(f"hf:{broken}")
