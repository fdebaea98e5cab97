"""The normalized transcript: provider-neutral messages made of content blocks.

Adapters translate these to and from each wire format; sessions store them (`to_dict` / `from_dict`);
the stream-json printer emits them in Anthropic message shape, which this mirrors on purpose.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal, TypeAlias

from agentcli.record import record

Role = Literal["user", "assistant"]


@record
class TextBlock:
    text: str


@record
class ThinkingBlock:
    """Model reasoning. `signature` (Anthropic) must be sent back verbatim; `provider` says who signed it,
    so another provider's adapter can drop or convert it."""

    thinking: str
    signature: str | None = None
    provider: str | None = None


@record
class RedactedThinkingBlock:
    data: str
    provider: str | None = None


@record
class ToolUseBlock:
    """A tool call. `raw_arguments` is set only when the model's argument text was not valid JSON
    (then `input` is empty and the loop answers with an error result)."""

    id: str
    name: str
    input: dict[str, Any]
    raw_arguments: str | None = None


@record
class ToolResultBlock:
    tool_use_id: str
    content: str
    is_error: bool = False


@record
class ImageBlock:
    """An image. With `path` (and the file's `sha256`) it is stored by reference: sessions keep the path and
    hash, not the bytes, and read the file again on resume (agentcli.llm.imagefile)."""

    media_type: str
    data: str  # base64
    path: str | None = None
    sha256: str | None = None


ContentBlock: TypeAlias = (
    TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock | ToolResultBlock | ImageBlock
)


@record
class Message:
    role: Role
    content: tuple[ContentBlock, ...]

    @staticmethod
    def user(text: str) -> Message:
        return Message("user", (TextBlock(text),))

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "content": [block_to_dict(b) for b in self.content]}

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Message:
        role = d["role"]
        if role not in ("user", "assistant"):
            raise ValueError(f"unknown role {role!r}")
        content = d["content"]
        if isinstance(content, str):
            return Message(role, (TextBlock(content),))
        return Message(role, tuple(block_from_dict(b) for b in content))


def merge_consecutive(messages: list[Message]) -> tuple[Message, ...]:
    """Join runs of same-role messages (left by an interrupted or failed turn) so every provider accepts them."""
    out: list[Message] = []
    for m in messages:
        if out and out[-1].role == m.role:
            out[-1] = Message(m.role, out[-1].content + m.content)
        else:
            out.append(m)
    return tuple(out)


def block_to_dict(b: ContentBlock) -> dict[str, Any]:
    """Anthropic-shaped dict for one block (what sessions store and stream-json prints)."""
    match b:
        case TextBlock(text):
            return {"type": "text", "text": text}
        case ThinkingBlock(thinking, signature, provider):
            d: dict[str, Any] = {"type": "thinking", "thinking": thinking}
            if signature is not None:
                d["signature"] = signature
            if provider is not None:
                d["provider"] = provider
            return d
        case RedactedThinkingBlock(data, provider):
            return {"type": "redacted_thinking", "data": data, "provider": provider}
        case ToolUseBlock(id_, name, input_, raw):
            d = {"type": "tool_use", "id": id_, "name": name, "input": input_}
            if raw is not None:
                d["raw_arguments"] = raw
            return d
        case ToolResultBlock(tool_use_id, content, is_error):
            return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content, "is_error": is_error}
        case ImageBlock(media_type, data, path, sha256) if path is not None:
            return {"type": "image", "source": {"type": "file", "media_type": media_type, "path": path,
                                                "sha256": sha256}}
        case ImageBlock(media_type, data):
            return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}
    raise TypeError(f"not a content block: {b!r}")


def _image_file(path: str, sha256: Any) -> ContentBlock:
    """A stored image reference, read again; a text note when the file is gone or changed (the session still
    loads)."""
    from pathlib import Path

    from agentcli.llm.imagefile import ImageError, read_image

    try:
        return ImageBlock(*read_image(Path(path), sha256 if isinstance(sha256, str) else None))
    except ImageError as err:
        return TextBlock(f"[image not available: {err}]")


def block_from_dict(d: dict[str, Any]) -> ContentBlock:
    t = d.get("type")
    if t == "text":
        return TextBlock(d["text"])
    if t == "thinking":
        return ThinkingBlock(d["thinking"], d.get("signature"), d.get("provider"))
    if t == "redacted_thinking":
        return RedactedThinkingBlock(d["data"], d.get("provider"))
    if t == "tool_use":
        return ToolUseBlock(d["id"], d["name"], dict(d.get("input") or {}), d.get("raw_arguments"))
    if t == "tool_result":
        content = d.get("content", "")
        if isinstance(content, list):
            content = "".join(c.get("text", "") for c in content if isinstance(c, dict))
        return ToolResultBlock(d["tool_use_id"], content, bool(d.get("is_error", False)))
    if t == "image":
        src = d["source"]
        if src.get("type") == "file":
            return _image_file(str(src["path"]), src.get("sha256"))
        return ImageBlock(src["media_type"], src["data"])
    raise ValueError(f"unknown content block type {t!r}")


@record
class Usage:
    """Token counts for one request (or a sum). `estimated` marks counts we computed, not the provider."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    estimated: bool = False

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
            self.estimated or other.estimated,
        )

    def to_dict(self) -> dict[str, Any]:
        """Anthropic-style usage keys (what Claude Code scripts read), plus ours."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_input_tokens": self.cache_read_tokens,
            "cache_creation_input_tokens": self.cache_write_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "estimated": self.estimated,
        }


@record
class ToolSpec:
    """What the model is told about a tool."""

    name: str
    description: str
    input_schema: dict[str, Any] = field(default_factory=dict)
