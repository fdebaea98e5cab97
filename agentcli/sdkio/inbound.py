"""A `user` line from stdin → agentcli's Message.

    {"type":"user","message":{"role":"user","content":"text"},"parent_tool_use_id":null,"session_id":"…"}
    {"type":"user","message":{"role":"user","content":[{"type":"text","text":"…"},
        {"type":"image","source":{"type":"base64","media_type":"image/png","data":"…"}}]}}

Only what a person can send is accepted: text and base64 images (png, jpeg, gif, webp). Anything else (a tool
result, an image by path or URL, a role other than user) is refused with a one-line reason, never guessed.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from agentcli.errors import UsageError
from agentcli.llm.images import MAX_FILE_BYTES, SUFFIXES
from agentcli.llm.messages import ContentBlock, ImageBlock, Message, TextBlock

MEDIA_TYPES = frozenset(SUFFIXES.values())


class BadInput(UsageError):
    code = "bad_input"


def user_message(data: dict[str, Any], line_no: int) -> Message:
    """The Message a `user` line carries; BadInput (naming the line) when it is not one agentcli can send."""
    where = f"stdin line {line_no}"
    body = data.get("message")
    if not isinstance(body, dict) or body.get("role", "user") != "user":
        raise BadInput(f"{where}: a user line needs \"message\": {{\"role\": \"user\", \"content\": …}}")
    content = body.get("content")
    if isinstance(content, str):
        if not content.strip():
            raise BadInput(f"{where}: the user message is empty")
        return Message.user(content)
    if not isinstance(content, list) or not content:
        raise BadInput(f"{where}: message.content must be a string or a non-empty list of content blocks")
    blocks = tuple(_block(b, f"{where}, content block {i + 1}") for i, b in enumerate(content))
    return Message("user", blocks)


def _block(block: Any, where: str) -> ContentBlock:
    kind = block.get("type") if isinstance(block, dict) else None
    if kind == "text" and isinstance(block.get("text"), str):
        return TextBlock(block["text"])
    if kind == "image":
        return _image(block.get("source"), where)
    raise BadInput(f"{where}: only text and image blocks can be sent (got {kind!r})")


def _image(source: Any, where: str) -> ImageBlock:
    if not isinstance(source, dict) or source.get("type") != "base64":
        raise BadInput(f"{where}: an image needs a base64 source (paths and URLs are not read)")
    media_type, data = source.get("media_type"), source.get("data")
    if media_type not in MEDIA_TYPES or not isinstance(data, str):
        raise BadInput(f"{where}: image media_type must be one of {', '.join(sorted(MEDIA_TYPES))}")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise BadInput(f"{where}: the image data is not valid base64") from None
    if len(raw) > MAX_FILE_BYTES:
        raise BadInput(f"{where}: the image is {len(raw) >> 20} MiB; images up to {MAX_FILE_BYTES >> 20} MiB")
    return ImageBlock(str(media_type), data)
