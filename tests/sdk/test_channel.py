"""The control channel on its own: routing, answers, errors, timeouts and cancellation (no subprocess)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agentcli.sdkio.channel import MAX_LINE, ControlChannel, ControlError, UserLine


class Wire:
    """What the channel wrote, and a reader the test feeds."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.problems: list[str] = []
        self.written = asyncio.Event()

    def write(self, line: str) -> None:
        assert line.endswith("\n") and line.count("\n") == 1  # one whole line per write
        self.lines.append(json.loads(line))
        self.written.set()

    async def next_line(self) -> dict[str, Any]:
        while not self.lines:
            self.written.clear()
            await self.written.wait()
        return self.lines.pop(0)


def channel(limit: int = MAX_LINE) -> tuple[ControlChannel, Wire, asyncio.StreamReader]:
    wire = Wire()
    return ControlChannel(wire.write, lambda text, bad: wire.problems.append(text)), wire, asyncio.StreamReader(
        limit=limit)


def feed(stream: asyncio.StreamReader, *objs: Any) -> None:
    for o in objs:
        stream.feed_data((o if isinstance(o, str) else json.dumps(o)).encode() + b"\n")


def test_requests_get_answers_errors_and_unknown_subtypes_an_error() -> None:
    async def main() -> list[dict[str, Any]]:
        ch, wire, stream = channel()

        async def boom(req: dict[str, Any]) -> dict[str, Any]:
            raise RuntimeError("kaput\nvia http://alice:s3cret-pass@proxy.corp:8080")

        async def echo(req: dict[str, Any]) -> dict[str, Any]:
            return {"got": req["x"]}

        ch.handle("boom", boom)
        ch.handle("echo", echo)
        reader = asyncio.ensure_future(ch.read(stream))
        feed(stream, *({"type": "control_request", "request_id": f"r{i}", "request": r} for i, r in
                       enumerate([{"subtype": "echo", "x": 1}, {"subtype": "boom"}, {"subtype": "nope"}])))
        out = [await wire.next_line() for _ in range(3)]
        stream.feed_eof()
        await reader
        return out

    answers = {a["response"]["request_id"]: a["response"] for a in asyncio.run(main())}
    assert answers["r0"] == {"subtype": "success", "request_id": "r0", "response": {"got": 1}}
    assert answers["r1"] == {"subtype": "error", "request_id": "r1",
                             "error": "boom failed: kaput via http://alice:[REDACTED]@proxy.corp:8080"}
    assert answers["r2"]["subtype"] == "error"
    assert "unsupported control request subtype: 'nope'" in answers["r2"]["error"]


def test_our_requests_match_responses_by_id_and_fail_cleanly() -> None:
    async def main() -> tuple[Any, ...]:
        ch, wire, stream = channel()
        reader = asyncio.ensure_future(ch.read(stream))
        ok = asyncio.ensure_future(ch.request("can_use_tool", {"tool_name": "Bash"}))
        bad = asyncio.ensure_future(ch.request("hook_callback", {"callback_id": "hook_0"}))
        first, second = await wire.next_line(), await wire.next_line()
        feed(stream, {"type": "control_response", "response": {"subtype": "error", "request_id": second["request_id"],
                                                                "error": "no such hook"}},
             {"type": "control_response", "response": {"subtype": "success", "request_id": first["request_id"],
                                                       "response": {"behavior": "allow"}}},
             {"type": "control_response", "response": {"subtype": "success", "request_id": "forged"}})
        answer = await ok
        with pytest.raises(ControlError, match="no such hook"):
            await bad
        with pytest.raises(ControlError, match=r"within 0\.01 s"):
            await ch.request("mcp_message", {}, timeout=0.01)
        timed_out = await wire.next_line()
        cancel = await wire.next_line()
        assert cancel.get("request_id") == timed_out["request_id"]
        late = asyncio.ensure_future(ch.request("can_use_tool", {}))
        await wire.next_line()
        stream.feed_eof()
        await reader
        with pytest.raises(ControlError, match="closed agentcli's input"):
            await late
        return first, answer, cancel, wire.problems, ch.problems

    first, answer, cancel, problems, bad = asyncio.run(main())
    assert first["type"] == "control_request" and first["request"] == {"tool_name": "Bash", "subtype": "can_use_tool"}
    assert answer == {"behavior": "allow"}
    assert cancel["type"] == "control_cancel_request"
    assert problems == ["stdin line 3: a control_response for no pending request ('forged')"]
    assert bad == 0  # a late or stray answer is worth a warning, not a failed session


def test_lines_route_and_bad_ones_are_reported() -> None:
    async def main() -> tuple[list[UserLine | None], list[str], list[dict[str, Any]], int]:
        ch, wire, stream = channel(limit=4096)  # the real limit is MAX_LINE; a line over it is skipped the same way
        started = asyncio.Event()

        async def slow(req: dict[str, Any]) -> dict[str, Any]:
            started.set()
            await asyncio.sleep(3600)
            return {}

        ch.handle("slow", slow)
        reader = asyncio.ensure_future(ch.read(stream))
        feed(stream, {"type": "user", "message": {"role": "user", "content": "hi"}}, "[1, 2]", "{oops", "",
             {"type": "mystery"}, {"type": "keep_alive"},
             {"type": "control_request", "request_id": "s", "request": {"subtype": "slow"}})
        await started.wait()
        feed(stream, {"type": "control_cancel_request", "request_id": "s"})
        stream.feed_data(b"x" * 10_000 + b"\n")
        stream.feed_data(b'{"type":"user","message":{"role":"user","content":"last"}}')  # no final newline
        stream.feed_eof()
        await reader
        items = [ch.inbox.get_nowait() for _ in range(ch.inbox.qsize())]
        return items, wire.problems, wire.lines, ch.problems

    items, problems, written, bad = asyncio.run(main())
    assert [i.data["message"]["content"] if i else None for i in items] == ["hi", "last", None]
    assert problems[0].startswith("stdin line 2: unknown message type None")
    assert problems[1].startswith("stdin line 3 is not valid JSON")
    assert problems[2].startswith("stdin line 5: unknown message type 'mystery'")
    assert problems[3].startswith("stdin line 9 is longer than") and len(problems) == 4
    assert written == []  # the cancelled request is not answered
    assert bad == 3  # not JSON objects, and the long line; an unknown type is only a warning
