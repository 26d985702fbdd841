"""Local-only model loading, safetensors checkpoints, seeding and device choice.

Nothing here reaches a hub: every model is a local directory with a config.json.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import numpy as np

from toolkit.core.errors import InputError, RuntimeFailure
from toolkit.core.extras import has, require

# Never let transformers/huggingface_hub try the network for a local path.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def quiet_library_logs() -> None:
    """Keep library chatter (weight-loading progress bars, optional-kernel warnings) off stderr.

    Errors still show; stderr stays for the command's own progress, tables and one-line errors.
    """
    import logging

    for library in ("bitsandbytes", "kernels"):  # kernels: "Skipping publisher trust check ... offline mode"
        logging.getLogger(library).setLevel(logging.ERROR)
    if has("transformers"):
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    try:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    except ImportError:  # pragma: no cover - hub not installed
        pass


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % (2**32))
    if has("torch"):
        import torch

        torch.manual_seed(seed)


def pick_device(preference: str = "auto") -> str:
    if preference not in ("auto", "cpu", "cuda") and not preference.startswith("cuda:"):
        raise InputError(f"--device {preference}: expected auto, cpu or cuda[:N]")
    if preference == "cpu":
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda" if preference == "auto" else preference
    if preference.startswith("cuda"):
        raise RuntimeFailure(f"--device {preference}: no CUDA device is available")
    return "cpu"


def check_model_dir(path: str | Path, what: str = "model") -> Path:
    """A model is a local directory with a config.json; say clearly when it is not."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such {what} directory (models are local paths; nothing is downloaded)")
    if not p.is_dir():
        raise InputError(f"{p}: expected a {what} directory with config.json, got a file")
    config = p / "config.json"
    if not config.exists():
        raise InputError(f"{p}: not a {what} directory (no config.json)")
    try:
        json.loads(config.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{config}: corrupted config ({exc})") from None
    return p


def resolve_dtype(name: str | None):
    import torch

    if name in (None, "", "auto"):
        return None
    try:
        return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]
    except KeyError:
        raise InputError(f"dtype {name}: expected float32, bfloat16 or float16") from None


def quantization_config(load_in_4bit: bool, load_in_8bit: bool):
    """bitsandbytes 4/8-bit loading, only where a CUDA device exists."""
    if not (load_in_4bit or load_in_8bit):
        return None
    import torch

    if not torch.cuda.is_available():
        raise RuntimeFailure("4-bit/8-bit loading needs a CUDA device with bitsandbytes; none is available here")
    require("ml", "bitsandbytes")
    from transformers import BitsAndBytesConfig

    if load_in_4bit:
        return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
                                  bnb_4bit_compute_dtype=torch.bfloat16)
    return BitsAndBytesConfig(load_in_8bit=True)


def load_causal_lm(path: str | Path, *, device: str = "auto", dtype: str | None = None,
                   load_in_4bit: bool = False, load_in_8bit: bool = False) -> tuple[Any, Any, str]:
    """Load a local causal LM and its tokenizer, left-padded for batched generation."""
    require("ml", "torch", "transformers")
    quiet_library_logs()
    from safetensors import SafetensorError
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from toolkit.core.copy_lm import register

    register()  # model directories of the copy-head LM (copy_llama) load like any other
    p = check_model_dir(path)
    dev = pick_device(device)
    quant = quantization_config(load_in_4bit, load_in_8bit)
    try:
        tokenizer = AutoTokenizer.from_pretrained(p, local_files_only=True)
        kwargs: dict[str, Any] = {"local_files_only": True}
        if resolve_dtype(dtype) is not None:
            kwargs["dtype"] = resolve_dtype(dtype)
        if quant is not None:
            kwargs["quantization_config"] = quant
            kwargs["device_map"] = {"": 0}
        model = AutoModelForCausalLM.from_pretrained(p, **kwargs)
    except SafetensorError as exc:
        raise InputError(f"{p}: corrupted weights ({str(exc).splitlines()[0]})") from None
    except (OSError, ValueError, KeyError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{p}: cannot load as a causal LM ({first})") from None
    if quant is None:
        model.to(dev)
    model.eval()
    tokenizer.padding_side = "left"
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer, dev


def save_tensors(tensors: dict[str, Any], path: str | Path, metadata: dict[str, str] | None = None) -> None:
    require("ml", "safetensors", "torch")
    from safetensors.torch import save_file

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in tensors.items()}, str(path), metadata=metadata)
    # safetensors creates files 0600; give them the permissions of any other output file.
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)


def load_tensors(path: str | Path) -> tuple[dict[str, Any], dict[str, str]]:
    """Load a safetensors file; a missing or corrupted file is a one-line input error."""
    require("ml", "safetensors", "torch")
    from safetensors import safe_open

    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such checkpoint file")
    try:
        with safe_open(str(p), framework="pt") as fh:
            return {k: fh.get_tensor(k) for k in fh.keys()}, dict(fh.metadata() or {})
    except Exception as exc:  # safetensors raises several private error types
        raise InputError(f"{p}: corrupted or not a safetensors checkpoint ({exc})") from None


def load_torch_state(path: str | Path, *, weights_only: bool = False, map_location: str | None = None) -> Any:
    """A resume checkpoint this project wrote with torch.save (optimizer and RNG state, which safetensors cannot
    hold); a missing, truncated or foreign file is a one-line input error, not a traceback."""
    require("ml", "torch")
    import torch

    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such checkpoint file")
    try:
        return torch.load(p, map_location=map_location, weights_only=weights_only)
    except Exception as exc:  # zip, pickle and EOF errors alike
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise InputError(f"{p}: corrupted checkpoint ({type(exc).__name__}: {first[:160]})") from None
