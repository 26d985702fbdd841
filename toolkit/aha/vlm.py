"""Loading a local vision-language model (+ optional LoRA adapter) and talking to it.

Any model that AutoProcessor / AutoModelForImageTextToText load works (LLaVA-1.5,
Qwen2-VL, Idefics3/SmolVLM, the tiny model from `reason aha tiny`). Prompts use the
processor's chat template when it has one, else the LLaVA-1.5 'USER: <image>\\n... ASSISTANT:' form.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.aha.vocab import IMAGE_TOKEN, detokenize
from toolkit.core.errors import InputError
from toolkit.core.extras import require


def quiet_transformers() -> None:
    import transformers

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    try:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    except ImportError:  # pragma: no cover - older hub
        pass


def load_image(path: str | Path, where: str = ""):
    """An RGB PIL image; a missing or corrupt file is a one-line input error naming it."""
    from PIL import Image, UnidentifiedImageError

    prefix = f"{where}: " if where else ""
    try:
        with Image.open(path) as im:
            im.load()
            return im.convert("RGB")
    except FileNotFoundError:
        raise InputError(f"{prefix}{path}: no such image file") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise InputError(f"{prefix}{path}: corrupt or unreadable image ({type(exc).__name__})") from None


def check_vlm_dir(path: str | Path) -> Path:
    p = Path(path)
    if not p.is_dir():
        raise InputError(f"{p}: no such model directory (models are local paths; nothing is downloaded)")
    config = p / "config.json"
    if not config.is_file():
        raise InputError(f"{p}: not a model directory (no config.json)")
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{config}: corrupted config ({exc})") from None
    if "vision_config" not in data:
        kind = data.get("model_type", "unknown")
        raise InputError(f"{p}: not a vision-language model (model_type '{kind}' has no vision_config)")
    return p


@dataclass
class VLM:
    model: Any
    processor: Any
    device: str
    word_level: bool = False  # the tiny model's tokenizer puts spaces around punctuation
    normalize: Any = None  # GridNormalizer: brings a FailGen grid to the model's trained geometry

    @property
    def tokenizer(self):
        return getattr(self.processor, "tokenizer", self.processor)

    def prompt(self, question: str) -> str:
        template = getattr(self.processor, "chat_template", None)
        if template:
            messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": question}]}]
            return self.processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        image_token = getattr(self.processor, "image_token", None) or IMAGE_TOKEN
        return f"USER: {image_token}\n{question} ASSISTANT:"

    def clean(self, text: str) -> str:
        return detokenize(text) if self.word_level else text.strip()

    def fit(self, image, where: str = ""):
        """The grid at the model's trained geometry (views resized); as it is for a model without one.
        An image that is not a FailGen grid is an input error naming `where` when the model has one."""
        return self.normalize(image, where) if self.normalize is not None else image

    @staticmethod
    def prepare(image):
        """What the model sees of a FailGen grid: the keyframes up to the current one (the blank future
        columns dropped), so a 4-sub-task task's grid looks like a 2-sub-task one's at the same step."""
        from toolkit.failgen.grid import trim_future

        return trim_future(image)

    def generate(self, images: list, questions: list[str], max_new_tokens: int = 48) -> list[str]:
        """Greedy answers, one per (image, question)."""
        import torch

        tok = self.tokenizer
        tok.padding_side = "left"
        batch = self.processor(images=[self.prepare(im) for im in images], text=[self.prompt(q) for q in questions],
                               padding=True, return_tensors="pt")
        batch = {k: v.to(self.device) for k, v in batch.items()}
        with torch.no_grad():
            out = self.model.generate(**batch, max_new_tokens=max_new_tokens, do_sample=False,
                                      pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
        new = out[:, batch["input_ids"].shape[1]:]
        return [self.clean(t) for t in tok.batch_decode(new, skip_special_tokens=True)]


def load_vlm(path: str | Path, adapter: str | Path | None = None, *, device: str = "auto",
             load_in_4bit: bool = False, trainable: bool = False, warn_geometry: bool = True) -> VLM:
    """Load model + processor from a local directory; attach a peft adapter when given. The grid
    geometry comes from the adapter's directory when it records one, else from the model's."""
    require("ml", "torch", "transformers")
    from toolkit.core.models import pick_device, quantization_config

    p = check_vlm_dir(path)
    quiet_transformers()
    from transformers import AutoModelForImageTextToText, AutoProcessor

    dev = pick_device(device)
    quant = quantization_config(load_in_4bit, False)
    try:
        processor = AutoProcessor.from_pretrained(p, local_files_only=True)
        kwargs: dict[str, Any] = {"local_files_only": True}
        if quant is not None:
            kwargs.update(quantization_config=quant, device_map={"": 0})
        model = AutoModelForImageTextToText.from_pretrained(p, **kwargs)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{p}: cannot load as a vision-language model ({first})") from None
    if not hasattr(processor, "image_processor"):
        raise InputError(f"{p}: the processor has no image processor; not a vision-language model directory")
    if adapter is not None:
        model = attach_adapter(model, adapter, trainable=trainable)
    if quant is None:
        model.to(dev)
    model.train(trainable)
    return VLM(model=model, processor=processor, device=dev, word_level=(p / "tiny_spec.json").is_file(),
               normalize=model_normalizer(([Path(adapter)] if adapter else []) + [p], warn=warn_geometry))


def model_normalizer(dirs: list[Path], warn: bool = True):
    """The GridNormalizer of the first directory with a geometry file; without one, grids go in as they
    are (a one-line warning: an older or foreign model)."""
    from toolkit.aha.geometry import GEOMETRY_FILE, GridNormalizer, read_geometry
    from toolkit.core import console

    for d in dirs:
        geometry = read_geometry(d)
        if geometry is not None:
            return GridNormalizer(geometry)
    if warn:
        console.warn(f"{dirs[-1]}: no {GEOMETRY_FILE} (an older or foreign model): grids go in at their own size")
    return None


def attach_adapter(model, adapter: str | Path, trainable: bool = False):
    require("ml", "peft")
    from peft import PeftModel

    a = Path(adapter)
    if not (a / "adapter_config.json").is_file():
        raise InputError(f"{a}: not a peft adapter directory (no adapter_config.json)")
    try:
        return PeftModel.from_pretrained(model, a, is_trainable=trainable)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{a}: cannot load the adapter onto this model ({first})") from None
