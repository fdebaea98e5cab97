"""Hooks registered in code: `initialize.hooks` → a `hook_callback` request when their event matches.

    initialize: {"hooks": {"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"], "timeout": 30,
                                           "onFailure": "block"}]}}
    → {"subtype":"hook_callback","callback_id":"hook_0","input":{hook input, as a command hook's stdin},
       "tool_use_id":"…"}
    ← the callback's output: the same JSON a command hook prints (decision, hookSpecificOutput, continue …)

The answer is read by agentcli.hooks.output exactly as a command hook's stdout with exit status 0, so a callback
decides what a command hook can decide, no more. A callback that fails (an error answer, no answer in time,
stdin closed) is a non-blocking error, or a block when its matcher says `onFailure: "block"`.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentcli.core.events import HookFinished
from agentcli.core.hooks import HOOK_EVENTS, HookCall, HookOutcome, Hooks
from agentcli.errors import UsageError
from agentcli.hooks.matcher import matches
from agentcli.hooks.output import combine, interpret
from agentcli.hooks.process import Finished
from agentcli.ids import new_uuid
from agentcli.sdkio.channel import ControlChannel, ControlError

DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class Callback:
    event: str
    matcher: str
    callback_id: str
    timeout_s: float
    block_on_failure: bool


def parse_callbacks(table: Any) -> tuple[list[Callback], list[str]]:
    """`initialize.hooks` → callbacks, and warnings about events agentcli does not fire. UsageError when the
    table is not the SDK's shape."""
    if table is None:
        return [], []
    if not isinstance(table, dict):
        raise UsageError("initialize.hooks must be an object of events")
    out: list[Callback] = []
    warnings: list[str] = []
    for event, matchers in table.items():
        if event not in HOOK_EVENTS:
            warnings.append(f"hooks registered for {event!r} never run: agentcli has no such hook event")
            continue
        if not isinstance(matchers, list):
            raise UsageError(f"initialize.hooks.{event} must be a list of matchers")
        for m in matchers:
            out += _matcher(event, m)
    return out, warnings


def _matcher(event: str, m: Any) -> list[Callback]:
    ids = m.get("hookCallbackIds") if isinstance(m, dict) else None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise UsageError(f"initialize.hooks.{event}: each matcher needs hookCallbackIds (a list of strings)")
    matcher = m.get("matcher") or ""
    timeout = m.get("timeout")
    if not isinstance(matcher, str):
        raise UsageError(f"initialize.hooks.{event}: matcher must be a string")
    ok = isinstance(timeout, int | float) and not isinstance(timeout, bool) and math.isfinite(timeout) and timeout > 0
    # The CLI reads an onFailure value other than "continue" as "block" (the SDK's own comment).
    block = m.get("onFailure") is not None and m.get("onFailure") != "continue"
    return [Callback(event, matcher, i, float(timeout) if ok else DEFAULT_TIMEOUT_S, block) for i in ids]


class SdkHooks:
    """The session's hooks: the configured command hooks (`inner`) plus the SDK's callbacks."""

    def __init__(self, channel: ControlChannel, callbacks: list[Callback], inner: Hooks | None, cwd: str,
                 transcript_path: Callable[[], str | None] = lambda: None) -> None:
        self.channel = channel
        self.callbacks = callbacks
        self.inner = inner
        self.cwd = cwd
        self.transcript_path = transcript_path
        self._mine: dict[str, Callback] = {}  # hook_id of a selected call → its callback

    def select(self, event: str, target: str | None) -> list[HookCall]:
        calls = self.inner.select(event, target) if self.inner is not None else []
        name = f"{event}:{target}" if target else event
        for cb in self.callbacks:
            if cb.event == event and matches(cb.matcher, target):
                call = HookCall(new_uuid(), event, name, f"sdk callback {cb.callback_id}", cb.timeout_s)
                self._mine[call.hook_id] = cb
                calls.append(call)
        return calls

    async def run(self, calls: list[HookCall], payload: dict[str, Any]) -> HookOutcome:
        mine = [(c, self._mine.pop(c.hook_id)) for c in calls if c.hook_id in self._mine]
        theirs = [c for c in calls if c.hook_id not in {m.hook_id for m, _ in mine}]
        parts: list[HookOutcome] = []
        if theirs and self.inner is not None:
            parts.append(await self.inner.run(theirs, payload))
        parts += await asyncio.gather(*(self._callback(c, cb, payload) for c, cb in mine))
        return combine(parts)

    async def _callback(self, call: HookCall, cb: Callback, payload: dict[str, Any]) -> HookOutcome:
        t0 = time.monotonic()
        data = {"cwd": self.cwd, "transcript_path": self.transcript_path(), **payload}
        request = {"callback_id": cb.callback_id, "input": data, "tool_use_id": payload.get("tool_use_id")}
        try:
            answer = await self.channel.request("hook_callback", request, timeout=cb.timeout_s)
            done = Finished(0, json.dumps(_cli_names(answer)), "", _ms(t0))
        except ControlError as err:
            done = Finished(2 if cb.block_on_failure else 1, "", f"the hook callback failed: {err.message}", _ms(t0))
        label, outcome = interpret(call.event, call.name, done)
        if label == "error" and cb.block_on_failure:  # an answer the contract rejects blocks too (fail closed)
            why = "; ".join(outcome.messages) or "the hook callback failed"
            done = Finished(2, done.stdout, why, done.duration_ms)
            label, outcome = interpret(call.event, call.name, done)
        outcome.runs.append(HookFinished(call.hook_id, call.event, call.name, call.command, done.exit_code,
                                         done.stdout, done.stderr, label, done.duration_ms))
        return outcome


def _cli_names(answer: dict[str, Any]) -> dict[str, Any]:
    """The SDK converts `continue_`/`async_` itself; an older one may not."""
    return {("continue" if k == "continue_" else "async" if k == "async_" else k): v for k, v in answer.items()}


def _ms(t0: float) -> int:
    return int((time.monotonic() - t0) * 1000)
