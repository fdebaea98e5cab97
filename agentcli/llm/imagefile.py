"""An image file read, checked, scaled to what providers accept, and base64-encoded: below the message vocabulary
(agentcli.llm.messages reads a stored image again on resume; agentcli.llm.images makes the content blocks).
Pillow is imported only when an image is read.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
from pathlib import Path
from typing import NamedTuple

SUFFIXES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
            ".webp": "image/webp"}
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_EDGE = 1568  # px: the long edge every provider takes without scaling it again (Anthropic's advice)
MAX_ENCODED = 5 * 1024 * 1024  # bytes: the smallest per-image limit among the providers


class ImageError(ValueError):
    """Why an image cannot be sent; the message is for the model or the user."""


class ImageData(NamedTuple):
    """The fields of an `ImageBlock`, in its order."""

    media_type: str
    data: str
    path: str
    sha256: str


def is_image(path: Path) -> bool:
    return path.suffix.lower() in SUFFIXES


def read_image(path: Path, expected_sha256: str | None = None, *, raw: bytes | None = None) -> ImageData:
    if raw is None:
        from agentcli.settings.projectfiles import read_regular

        raw = read_regular(path, MAX_FILE_BYTES + 1)  # a FIFO named like an image must not hang the read
        if raw is None:
            raise ImageError(f"cannot read the image {path}: not a readable regular file")
    if len(raw) > MAX_FILE_BYTES:
        try:
            size = os.path.getsize(path)  # what was read stops one byte past the limit
        except OSError:
            size = len(raw)
        raise ImageError(f"{path} is {size // 1024} KiB; images up to {MAX_FILE_BYTES // 1024 // 1024} MiB")
    digest = hashlib.sha256(raw).hexdigest()
    if expected_sha256 is not None and digest != expected_sha256:
        raise ImageError(f"the image {path} has changed since it was attached")
    media_type, data = _fit(raw, path)
    return ImageData(media_type, base64.b64encode(data).decode("ascii"), str(path), digest)


def _fit(raw: bytes, path: Path) -> tuple[str, bytes]:
    from PIL import Image, UnidentifiedImageError

    try:
        img = Image.open(io.BytesIO(raw))
        img.load()
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as err:
        raise ImageError(f"{path} is not an image agentcli can read: {err}") from err
    fmt = (img.format or "").upper()
    if max(img.size) <= MAX_EDGE and len(raw) <= MAX_ENCODED and fmt in ("PNG", "JPEG", "GIF", "WEBP"):
        return Image.MIME[fmt], raw
    img.thumbnail((MAX_EDGE, MAX_EDGE))
    out = io.BytesIO()
    if img.mode in ("RGBA", "LA", "P"):
        img.save(out, "PNG", optimize=True)
        return "image/png", out.getvalue()
    img.convert("RGB").save(out, "JPEG", quality=85)
    return "image/jpeg", out.getvalue()
