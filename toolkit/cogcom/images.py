"""Images in chat messages (PNG data URLs) and in records (`image:sha256:<16 hex>`, as recordings keep them)."""

from __future__ import annotations

import hashlib

from PIL import Image

from toolkit.core.vlm import load_image, pil_data_url

__all__ = ["image_part", "image_ref", "load_image", "stored_messages"]


def image_ref(image: Image.Image) -> str:
    """The reference replay recordings use for this image (sha256 of its PNG data URL, 16 hex)."""
    return "image:sha256:" + hashlib.sha256(pil_data_url(image).encode("utf-8")).hexdigest()[:16]


def image_part(image: Image.Image) -> dict:
    return {"type": "image_url", "image_url": {"url": pil_data_url(image)}}


def stored_messages(messages: list[dict]) -> list[dict]:
    """Messages with every data-URL image replaced by its `image:sha256:` reference, as recordings keep them."""
    from toolkit.core.llm.base import normalize_request

    return normalize_request(messages, 1, 0.0, 1, None)["messages"]
