"""Loading a local vision-language model (+ optional LoRA adapter) and talking to it.

Any model that AutoProcessor / AutoModelForImageTextToText load works (LLaVA-1.5,
Qwen2-VL, Idefics3/SmolVLM, the tiny model of toolkit.core.tiny_vlm). Prompts use the
processor's chat template when it has one, else the LLaVA-1.5 'USER: <image>\\n... ASSISTANT:' form.
Generation is batched; a conversation (several question/answer turns about one image) is one
prompt. Images travel to chat servers as PNG data URLs (`image_message`).
"""

from __future__ import annotations

import base64
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.core.errors import InputError
from toolkit.core.extras import require
from toolkit.core.shared_images import shared_image_encoding, shared_preprocessing
from toolkit.core.tiny_vlm import IMAGE_TOKEN, detokenize

Turn = tuple[str, str | None]  # (question, answer); the last turn's answer is None: the one to generate


def quiet_transformers() -> None:
    from toolkit.core.models import quiet_library_logs

    quiet_library_logs()


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


def pil_data_url(image) -> str:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def image_data_url(path: str | Path, where: str = "") -> str:
    """The image as a data:image/png;base64 URL (re-encoded to PNG after checking it decodes)."""
    return pil_data_url(load_image(path, where=where))


def image_message(text: str, url: str) -> dict[str, Any]:
    """An OpenAI-style user message: the question, then the image as a data URL."""
    return {"role": "user", "content": [{"type": "text", "text": text},
                                        {"type": "image_url", "image_url": {"url": url}}]}


def conversation_messages(url: str, turns: list[Turn], system: str | None = None) -> list[dict[str, Any]]:
    """Chat messages for a multi-turn conversation about one image (the image rides on the first turn)."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for i, (question, answer) in enumerate(turns):
        messages.append(image_message(question, url) if i == 0 else {"role": "user", "content": question})
        if answer is not None:
            messages.append({"role": "assistant", "content": answer})
    return messages


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
    normalize: Any = None  # optional callable(image, where) -> image: brings an image to the trained geometry

    @property
    def tokenizer(self):
        return getattr(self.processor, "tokenizer", self.processor)

    def prompt(self, question: str) -> str:
        return self.conversation_prompt([(question, None)])

    def conversation_prompt(self, turns: list[Turn]) -> str:
        """The prompt text of a conversation; the image belongs to the first user turn."""
        template = getattr(self.processor, "chat_template", None)
        if template:
            messages: list[dict[str, Any]] = []
            for i, (question, answer) in enumerate(turns):
                parts = ([{"type": "image"}] if i == 0 else []) + [{"type": "text", "text": question}]
                messages.append({"role": "user", "content": parts})
                if answer is not None:
                    messages.append({"role": "assistant", "content": [{"type": "text", "text": answer}]})
            return self.processor.apply_chat_template(messages, add_generation_prompt=turns[-1][1] is None,
                                                      tokenize=False)
        image_token = getattr(self.processor, "image_token", None) or IMAGE_TOKEN
        text = ""
        for i, (question, answer) in enumerate(turns):
            user = f"USER: {image_token}\n{question}" if i == 0 else f" USER: {question}"
            text += f"{user} ASSISTANT:" + (f" {answer}" if answer is not None else "")
        return text

    def clean(self, text: str) -> str:
        return detokenize(text) if self.word_level else text.strip()

    def fit(self, image, where: str = ""):
        """The image at the model's trained geometry when the model has a normalizer; else as it is."""
        return self.normalize(image, where) if self.normalize is not None else image

    @staticmethod
    def prepare(image):
        """What the model sees of an image (a hook: systems override it)."""
        return image

    def generate(self, images: list, questions: list[str], max_new_tokens: int = 48) -> list[str]:
        """Greedy answers, one per (image, question)."""
        return self.generate_prompts(images, [self.prompt(q) for q in questions], max_new_tokens)

    def chat(self, images: list, conversations: list[list[Turn]], max_new_tokens: int = 48) -> list[str]:
        """Greedy answers to the last turn of each conversation (earlier turns carry their answers)."""
        return self.generate_prompts(images, [self.conversation_prompt(c) for c in conversations], max_new_tokens)

    def generate_prompts(self, images: list, prompts: list[str], max_new_tokens: int = 48) -> list[str]:
        import torch

        tok = self.tokenizer
        tok.padding_side = "left"
        shown = [self.prepare(im) for im in images]
        with shared_preprocessing(self.processor, images):
            batch = self.processor(images=shown, text=prompts, padding=True, return_tensors="pt")
        batch = {k: v.to(self.device) for k, v in batch.items()}
        with torch.no_grad(), shared_image_encoding(self.model, images):
            out = self.model.generate(**batch, max_new_tokens=max_new_tokens, do_sample=False,
                                      pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
        new = out[:, batch["input_ids"].shape[1]:]
        return [self.clean(t) for t in tok.batch_decode(new, skip_special_tokens=True)]


def load_vlm(path: str | Path, adapter: str | Path | None = None, *, device: str = "auto",
             load_in_4bit: bool = False, trainable: bool = False, cls: type[VLM] = VLM) -> VLM:
    """Load model + processor from a local directory; attach a peft adapter when given."""
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
    return cls(model=model, processor=processor, device=dev, word_level=(p / "tiny_spec.json").is_file())


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
