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


def image_ref(image: Image.Image) -> str:
    return "image:sha256:" + hashlib.sha256(png_bytes(image)).hexdigest()[:16]


def image_part(image: Image.Image) -> dict:
    url = "data:image/png;base64," + base64.b64encode(png_bytes(image)).decode("ascii")
    return {"type": "image_url", "image_url": {"url": url}}


def stored_messages(messages: list[dict]) -> list[dict]:
    """Messages with every data-URL image replaced by its `image:sha256:` reference (for records)."""
    out = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            parts = []
            for p in content:
                if p.get("type") == "image_url" and p["image_url"]["url"].startswith("data:"):
                    raw = base64.b64decode(p["image_url"]["url"].split(",", 1)[1])
                    ref = "image:sha256:" + hashlib.sha256(raw).hexdigest()[:16]
                    p = {"type": "image_url", "image_url": {"url": ref}}
                parts.append(p)
            content = parts
        out.append({"role": m["role"], "content": content})
    return out


def open_image(path: Path, where: str) -> Image.Image:
    if not path.is_file():
        raise InputError(f"{where}: image {path} does not exist")
    try:
        with Image.open(path) as im:
            im.load()
            return im.convert("RGB")
    except (UnidentifiedImageError, OSError) as exc:
        raise InputError(f"{where}: image {path} is corrupt or not an image ({exc})") from None
