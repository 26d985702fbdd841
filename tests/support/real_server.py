"""`transformers serve` (a real OpenAI-compatible server) over a tiny local model, started and stopped by tests.

The model is built from a config: a 2-layer Llama whose final norm is zeroed, so every logit is equal and
greedy decoding ends at once (id 0, <pad>, is also an end token). Its answers are empty: exactly the
unreadable output the pipelines must survive with their bounded retries, and fast on a small CPU.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

CHAT_TEMPLATE = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}assistant:{% endif %}")
SERVING_MODULES = ("fastapi", "uvicorn")


def missing_serving() -> list[str]:
    return [m for m in SERVING_MODULES if importlib.util.find_spec(m) is None]


def build_chat_model(out: Path) -> Path:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tests.support.tiny_models import build_tiny_llama

    build_tiny_llama(out)
    tok = AutoTokenizer.from_pretrained(out)
    tok.chat_template = CHAT_TEMPLATE  # /v1/chat/completions needs one
    tok.save_pretrained(out)
    model = AutoModelForCausalLM.from_pretrained(out)
    with torch.no_grad():
        model.model.norm.weight.zero_()
    model.generation_config.eos_token_id = [tok.eos_token_id, tok.pad_token_id]
    model.save_pretrained(out)
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TransformersServer:
    """`transformers serve MODEL --device cpu` on 127.0.0.1:<free port>, as a context manager."""

    def __init__(self, model: Path, log: Path, start_timeout: float = 240.0):
        self.model, self.log, self.start_timeout = model, log, start_timeout
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def uri(self) -> str:
        return f"openai:{self.model}@{self.url}"

    def __enter__(self) -> TransformersServer:
        cmd = [sys.executable, "-c", "from transformers.cli.transformers import main; main()", "serve",
               str(self.model), "--device", "cpu", "--host", "127.0.0.1", "--port", str(self.port)]
        env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        self.proc = subprocess.Popen(cmd, stdout=self.log.open("w"), stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"transformers serve exited ({self.proc.returncode}): {self.log.read_text()[-800:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2) as resp:
                    if resp.status == 200:
                        return self
            except OSError:
                time.sleep(1)
        self.__exit__()
        raise RuntimeError(f"transformers serve did not answer /health within {self.start_timeout:g} s")

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
