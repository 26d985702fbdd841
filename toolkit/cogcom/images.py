"""Images in chat messages (PNG data URLs) and in recordings (`image:sha256:<16 hex>`), and item images on disk."""

from __future__ import annotations

import base64
import hashlib
import io
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from toolkit.core.errors import InputError


def png_bytes(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def data_url(image: Image.Image) -> str:
    return "data:image/png;base64," + base64.b64encode(png_bytes(image)).decode("ascii")


def image_ref(image: Image.Image) -> str:
    """The reference replay recordings use for this image (sha256 of its PNG data URL, 16 hex)."""
    return "image:sha256:" + hashlib.sha256(data_url(image).encode("utf-8")).hexdigest()[:16]


def image_part(image: Image.Image) -> dict:
    return {"type": "image_url", "image_url": {"url": data_url(image)}}


def stored_messages(messages: list[dict]) -> list[dict]:
    """Messages with every data-URL image replaced by its `image:sha256:` reference, as recordings keep them."""
    from toolkit.core.llm.base import normalize_request

    return normalize_request(messages, 1, 0.0, 1, None)["messages"]


def open_image(path: Path, where: str) -> Image.Image:
    if not path.is_file():
        raise InputError(f"{where}: image {path} does not exist")
    try:
        with Image.open(path) as im:
            im.load()
            return im.convert("RGB")
    except (UnidentifiedImageError, OSError) as exc:
        raise InputError(f"{where}: image {path} is corrupt or not an image ({exc})") from None
