"""A real OpenAI-compatible server for end-to-end tests: `transformers serve` on a local model directory.

    with transformers_server(model_dir) as url:      # url = "http://127.0.0.1:PORT/v1"
        backend_uri = f"openai:{model_dir}@{url}"

`serving_available()` says whether the `transformers[serving]` extra (FastAPI + uvicorn) is installed.
`chat_model(dir)` builds a tiny random Llama with a word tokenizer and a chat template (the server's
/v1/chat/completions needs one).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

CHAT_TEMPLATE = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}assistant: {% endif %}")


def serving_available() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("fastapi", "uvicorn", "transformers"))


def chat_model(out: Path, seed: int = 0, context: int = 8192) -> Path:
    """A random 2-layer Llama (hidden 32) with the word tokenizer of tiny_models, a chat template and a
    context long enough for agent prompts (unknown words become <unk>, one token each)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from tests.support.tiny_models import build_word_tokenizer

    torch.manual_seed(seed)
    tok = build_word_tokenizer()
    tok.chat_template = CHAT_TEMPLATE
    config = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=context,
                         pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id,
                         eos_token_id=tok.eos_token_id)
    LlamaForCausalLM(config).save_pretrained(out)
    tok.save_pretrained(out)
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def transformers_server(model_dir: Path | None, *, start_timeout: float = 180.0,
                        log: Path | None = None) -> Iterator[str]:
    """Start `transformers serve MODEL_DIR` on a free local port (CPU); yield its /v1 base URL; stop it.

    With model_dir None the server is not pinned to one model: each request's "model" (a local directory)
    is loaded on first use, so one server answers for several test models."""
    port = _free_port()
    exe = Path(sys.executable).parent / "transformers"
    pinned = [] if model_dir is None else [str(model_dir)]
    argv = [str(exe), "serve", *pinned, "--device", "cpu", "--host", "127.0.0.1", "--port", str(port)]
    out = open(log, "wb") if log else subprocess.DEVNULL
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"transformers serve exited with {proc.returncode} before answering")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"transformers serve did not answer /health within {start_timeout:g} s")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if log:
            out.close()
