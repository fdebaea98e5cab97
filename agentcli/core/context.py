"""How big the next request is: the figure the status line and /context show and the one automatic compaction
is decided on.

The provider's count of the last request plus what was added since, or our own count when that is larger
(servers that truncate or under-report). tiktoken costs its load (0.1 s and more), so it counts only when a
request could be near the compaction threshold: a token is at least one byte, and a request of fewer bytes than
half the threshold is not near it (then about four bytes a token is shown). Each message is measured once.

A local server whose chat template drops the tools (agentcli.assembly.toolsseen) never puts them in the prompt:
then they are not counted (`tools_unseen`), or a 4096-token server would look full, and be compacted, every turn
because of tool definitions its model never reads.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agentcli.core.tokens import fixed_tokens, message_tokens
from agentcli.llm.messages import Message

TOOLS_DROPPED = "tools_dropped"  # the code of the stream Notice that says a server's template dropped the tools


def default_limit(window: int | None) -> int | None:
    """The automatic compaction threshold for a window: 80 % (setting `model_auto_compact_token_limit`)."""
    return int(window * 0.8) if window else None


class ContextMeter:
    def __init__(self, *, tools_unseen: bool = False) -> None:
        self.tools_unseen = tools_unseen  # the server renders its prompt without the tool definitions
        self._counted: tuple[int, int] | None = None  # (messages the provider counted, its figure)
        self._fixed: tuple[tuple[str, tuple[str, ...]], list[Any]] | None = None  # key → [bytes, tokens, specs]
        self._sizes: dict[int, list[Any]] = {}  # id → [message, bytes, tokens or None]

    def request_tokens(self, system: str, tools: Sequence[Any], messages: Sequence[Message], *,
                       precise: bool = True) -> int:
        """A request carrying `messages` with this system prompt and these tools: tiktoken, or with
        `precise=False` about four bytes a token. Tools the server drops (`tools_unseen`) are not counted."""
        if self.tools_unseen:
            tools = ()
        key = (system, tuple(t.name for t in tools))
        if self._fixed is None or self._fixed[0] != key:
            specs = [{"name": t.name, "description": t.description, "schema": t.input_schema} for t in tools]
            text = "\n".join([system, *(json.dumps(t) for t in specs)])
            self._fixed = (key, [len(text.encode()), None, specs])
        fixed = self._fixed[1]
        if precise and fixed[1] is None:
            fixed[1] = fixed_tokens(system, fixed[2])
        size = self.message_size if precise else self.message_bytes
        total = sum(size(m) for m in messages)
        return int(fixed[1] + total) if precise else int(fixed[0] + total) // 4

    def next_request(self, system: str, tools: Sequence[Any], messages: Sequence[Message], limit: int | None) -> int:
        """The size of the next request (see the module docstring); `limit` is the compaction threshold."""
        precise = limit is not None and self.request_tokens(system, tools, messages, precise=False) * 4 > limit // 2
        own = self.request_tokens(system, tools, messages, precise=precise)
        if self._counted is None or self._counted[0] > len(messages):
            return own
        n, base = self._counted
        added = sum(self.message_size(m) if precise else self.message_bytes(m) // 4 for m in messages[n:])
        return max(own, base + added)

    def reported(self, messages: int, tokens: int) -> None:
        """The provider (or a compaction) says a request of the first `messages` messages is `tokens` long."""
        self._counted = (messages, tokens)

    def saw(self, notice_code: str | None) -> None:
        """A notice from the provider's stream: `tools_dropped` says the server's prompt has no tools."""
        if notice_code == TOOLS_DROPPED:
            self.tools_unseen = True

    def forget_reported(self) -> None:
        self._counted = None

    def keep_only(self, messages: Sequence[Message]) -> None:
        """Forget the sizes of messages no longer in the history (after a compaction)."""
        self._sizes = {id(m): self._entry(m) for m in messages}

    def message_size(self, m: Message) -> int:
        """One message's tokens (tiktoken)."""
        entry = self._entry(m)
        if entry[2] is None:
            entry[2] = message_tokens(m)
        return int(entry[2])

    def message_bytes(self, m: Message) -> int:
        return int(self._entry(m)[1])

    def _entry(self, m: Message) -> list[Any]:
        # Messages are immutable: each is measured once (the entry keeps it alive, so its id stays its own).
        hit = self._sizes.get(id(m))
        if hit is None or hit[0] is not m:
            hit = self._sizes[id(m)] = [m, len(json.dumps(m.to_dict(), ensure_ascii=False).encode()), None]
        return hit
