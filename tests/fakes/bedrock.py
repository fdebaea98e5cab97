"""Claude on Amazon Bedrock (`POST /model/MODEL_ID/invoke-with-response-stream`): the Anthropic events, each as
an AWS event-stream message (binary frames: lengths, headers, CRC-32s) whose JSON payload carries the event
base64-encoded in `bytes` — what Bedrock sends and the SDK's decoder reads."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from typing import Any

from tests.fakes.anthropic import AnthropicRenderer, validate_messages_request
from tests.fakes.render import Ids, dumps, register
from tests.fakes.script import Fault, Reply


def _header(name: str, value: str) -> bytes:
    n, v = name.encode(), value.encode()
    return struct.pack("!B", len(n)) + n + b"\x07" + struct.pack("!H", len(v)) + v


def message(payload: bytes, headers: dict[str, str]) -> bytes:
    head = b"".join(_header(k, v) for k, v in headers.items())
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack("!II", total, len(head))
    prelude += struct.pack("!I", zlib.crc32(prelude))
    body = prelude + head + payload
    return body + struct.pack("!I", zlib.crc32(body))


def _chunk(event: dict[str, Any]) -> bytes:
    payload = dumps({"bytes": base64.b64encode(dumps(event).encode()).decode()}).encode()
    return message(payload, {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"})


class BedrockRenderer:
    content_type = "application/vnd.amazon.eventstream"

    def __init__(self) -> None:
        self.inner = AnthropicRenderer()

    def is_stream(self, request: dict[str, Any], path: str) -> bool:
        return path.split("?")[0].endswith("/invoke-with-response-stream")

    def stream(self, reply: Reply, request: dict[str, Any], ids: Ids) -> list[bytes]:
        out = []
        for frame in self.inner.stream(reply, request, ids):
            data = frame.decode().split("data: ", 1)[1].strip()
            out.append(_chunk(json.loads(data)))
        return out

    def stream_error(self, fault: Fault) -> bytes:
        payload = dumps({"message": fault.message}).encode()
        return message(payload, {":exception-type": "throttlingException", ":content-type": "application/json",
                                 ":message-type": "exception"})

    def error_body(self, status: int, message_: str, error_type: str | None) -> dict[str, Any]:
        return {"message": message_}

    def complete(self, reply: Reply, request: dict[str, Any], ids: Ids) -> dict[str, Any]:
        return self.inner.complete(reply, request, ids)

    def validate(self, request: dict[str, Any]) -> list[str]:
        errs = validate_messages_request({**request, "model": "in-the-path"})
        if not isinstance(request.get("anthropic_version"), str) or not request["anthropic_version"]:
            errs.append("anthropic_version: required on Bedrock")
        if "model" in request or "stream" in request:
            errs.append("model and stream are not allowed in the body on Bedrock (they are in the URL)")
        return errs


register("/invoke-with-response-stream", BedrockRenderer())
register("/invoke", BedrockRenderer())
