"""Images for the model as content blocks: a file read (agentcli.llm.imagefile) into an `ImageBlock`, or a note
saying why not.

Sessions store an image by reference (its path and the SHA-256 of the file), not its bytes; resuming reads the
file again (and says so when it is gone or changed). Pillow is imported only when an image is loaded.
"""

from __future__ import annotations

from pathlib import Path

from agentcli.llm.imagefile import MAX_FILE_BYTES, SUFFIXES, ImageError, is_image, read_image
from agentcli.llm.messages import ContentBlock, ImageBlock, TextBlock

__all__ = ["MAX_FILE_BYTES", "SUFFIXES", "ImageError", "is_image", "load_image", "mentioned_image"]


def load_image(path: Path, expected_sha256: str | None = None, *, raw: bytes | None = None) -> ImageBlock:
    """The image at `path`; `raw`: its bytes, already read by a caller that opened it safely (the Read tool)."""
    return ImageBlock(*read_image(path, expected_sha256, raw=raw))


def mentioned_image(path: Path, accepts: bool) -> ContentBlock:
    """An `@shot.png` mention: the image itself for a model that takes images, else a note saying why not."""
    if not accepts:
        return TextBlock(f"[{path.name} is an image; the current model does not accept images, so it was not sent]")
    try:
        return load_image(path)
    except ImageError as err:
        return TextBlock(f"[{path.name} was not attached: {err}]")
