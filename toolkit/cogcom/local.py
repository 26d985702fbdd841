"""`solve --model DIR`: a local image-text-to-text model as the chat backend of the manipulation loop.

Every user turn may carry images (the scene, then each CROP_AND_ZOOMIN result). With a chat template the
turns go through it with one image slot per image; without one, LLaVA-1.5 prompts are built with `<image>`
per image ("USER: <image>\\n... ASSISTANT: ..."). Decoding is greedy. A word-level model's reply has its call
text closed up again: "CROP_AND_ZOOMIN ([ [ 120, 340 ] ], 2)-> img_1" -> "CROP_AND_ZOOMIN([[120,340]], 2)->img_1",
"` txt_1 `" -> "`txt_1`".
"""

from __future__ import annotations

import base64
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.core.llm.base import Backend, Completion, apply_stop


def _split(content) -> tuple[list, str]:
    """(PIL images, text) of one message's content (data-URL images decoded)."""
    from PIL import Image

    if isinstance(content, str):
        return [], content
    images, texts = [], []
    for part in content:
        if part.get("type") == "image_url":
            raw = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
            images.append(Image.open(io.BytesIO(raw)).convert("RGB"))
        elif part.get("type") == "image":  # a PIL image (training conversations)
            images.append(part["image"])
        elif part.get("type") == "text":
            texts.append(part["text"])
    return images, "\n".join(texts)


def prompt_and_images(processor, messages: list[dict]) -> tuple[str, list]:
    """The prompt text and the images in order, one image slot per image in every turn."""
    turns = [(m["role"], *_split(m["content"])) for m in messages]
    images = [im for _, ims, _ in turns for im in ims]
    if getattr(processor, "chat_template", None):
        chat = [{"role": role, "content": [{"type": "image"} for _ in ims] + [{"type": "text", "text": text}]}
                for role, ims, text in turns]
        return processor.apply_chat_template(chat, add_generation_prompt=True), images
    out = []
    for role, ims, text in turns:
        if role == "user":
            out.append("USER: " + "".join("<image>\n" for _ in ims) + text)
        else:
            out.append("ASSISTANT: " + text)
    return " ".join(out) + " ASSISTANT:", images


@dataclass
class LocalVLMBackend(Backend):
    vlm: Any = None
    stand_in: bool = field(default=False)

    @classmethod
    def load(cls, path: Path) -> LocalVLMBackend:
        from toolkit.core.vlm import load_vlm

        vlm = load_vlm(path, device="auto")
        return cls(name=f"model:{path}", vlm=vlm)

    def _complete(self, messages, n, temperature, max_tokens, stop) -> Completion:
        import torch

        prompt, images = prompt_and_images(self.vlm.processor, messages)
        tok = self.vlm.tokenizer
        batch = self.vlm.processor(images=[self.vlm.prepare(im) for im in images] or None, text=[prompt],
                                   return_tensors="pt")
        batch = {k: v.to(self.vlm.device) for k, v in batch.items()}
        with torch.no_grad():
            out = self.vlm.model.generate(**batch, max_new_tokens=max_tokens, do_sample=False,
                                          pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
        text = self.vlm.clean(tok.decode(out[0, batch["input_ids"].shape[1]:], skip_special_tokens=True))
        if self.vlm.word_level:
            text = close_up(text)
        return Completion([apply_stop(text, stop)] * n)


def close_up(text: str) -> str:
    """Box text and backticked variables as the runtime reads them, from a word-level decoder's spacing."""
    text = re.sub(r"\[\s*\[([0-9,;\s]*)\]\s*\]", lambda m: "[[" + re.sub(r"\s+", "", m.group(1)) + "]]", text)
    text = re.sub(r"\b([A-Za-z_]+)\s+\(", r"\1(", text)  # CROP_AND_ZOOMIN ( -> CROP_AND_ZOOMIN(
    text = re.sub(r"->\s+", "->", text)
    return re.sub(r"`\s*([A-Za-z0-9_]+)\s*`", r"`\1`", text)
