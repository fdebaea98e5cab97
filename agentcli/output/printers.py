"""Headless printers: each consumes AgentEvents with `feed(event)` and `flush()`.

text        the final result on stdout (Claude Code's `-p` contract); warnings and errors on stderr
json        one result object on stdout when the run ends
stream-json one JSON object per line as things happen; `result` always last
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol, TextIO, assert_never

from agentcli.core.events import (
    AgentEvent,
    ApiRetry,
    AssistantMessage,
    CompactBoundary,
    CompactionStarted,
    HookFinished,
    HookStarted,
    MessageStop,
    Notice,
    PermissionDecision,
    RedactedThinking,
    RunFinished,
    SessionChanged,
    SessionStarted,
    SubagentEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    TodosUpdated,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolFinished,
    ToolResultsMessage,
    ToolStarted,
    TurnStarted,
    UsageReport,
    WebSearchResults,
)
from agentcli.driver.results import is_stopped
from agentcli.ids import new_uuid
from agentcli.output import schema
from agentcli.output.partial import PartialMapper


class Printer(Protocol):
    def feed(self, ev: AgentEvent) -> None: ...

    def flush(self) -> None: ...


def _for(stream: TextIO) -> Callable[[str], str]:
    """`inert` for a stream that is a terminal, the text unchanged otherwise."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty:
        return lambda text: text
    from agentcli.visible import inert

    return inert


def _dump(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class TextPrinter:
    """Prints the final answer; with `verbose`, progress goes to stderr. A stopped run prints what the model
    had written so far (the reply under way, else the last reply's text), then its error line."""

    def __init__(self, out: TextIO, err: TextIO, verbose: bool = False) -> None:
        self.out, self.err, self.verbose = out, err, verbose
        # On a terminal the model's text must not drive it (set the title, write the clipboard, erase lines);
        # through a pipe it stays byte for byte what the model said.
        self._out_text = _for(out)
        self._err_text = _for(err)
        self._reply: list[str] = []  # the main agent's reply under way
        self._last = ""  # the text of its last complete reply
        self._empty = False  # the last reply had neither text nor tool calls

    def _answer(self, text: str) -> None:
        if text:
            text = self._out_text(text)
            self.out.write(text if text.endswith("\n") else text + "\n")

    def feed(self, ev: AgentEvent) -> None:
        match ev:
            case TextDelta(text):
                self._reply.append(text)
            case RunFinished(result):
                if is_stopped(result):  # what the model had written so far is still the run's output
                    self._answer("".join(self._reply) or self._last)
                if result.is_error:
                    self.err.write(self._err_text(f"agentcli: {result.error_message} [{result.error_code}]\n"))
                else:
                    if self._empty and result.structured_output is None:  # on stderr: stdout stays the answer
                        self.err.write("agentcli: (the model returned an empty reply)\n")
                    self._answer(result.result)
                if result.permission_denials:
                    names = ", ".join(sorted({d["tool_name"] for d in result.permission_denials}))
                    self.err.write(f"agentcli: denied tool calls: {names} (see --permission-mode, --allowedTools)\n")
            case ApiRetry(attempt, max_retries, delay, code, message, _, discarded):
                if discarded:
                    self._reply = []
                cut = " (the reply broke off; starting it over)" if discarded else ""
                self.err.write(f"agentcli: {message} [{code}]{cut} — retry {attempt}/{max_retries} in {delay:.1f}s\n")
            case Notice(level, text):
                if level == "warning" or self.verbose:
                    self.err.write(f"agentcli: {text}\n")
            case SubagentEvent():
                agent, _, inner = ev.innermost()
                if isinstance(inner, Notice) and (inner.level == "warning" or self.verbose):
                    self.err.write(self._err_text(f"agentcli (subagent {agent}): {inner.text}\n"))
            case ToolStarted(_, name, args):
                if self.verbose:
                    self.err.write(self._err_text(f"· {name} {_short(args)}\n"))
            case CompactBoundary(_, reason, pre, post, phases):
                ran = " + ".join(phases) or "nothing to do"
                self.err.write(f"agentcli: compacted the conversation ({reason}, {ran}): {pre:,} → {post:,} tokens\n")
            case AssistantMessage(message, partial=partial):
                self._last, self._reply = message.text or self._last, []
                self._empty = not partial and not message.text.strip() and not message.tool_uses
            case TurnStarted():
                self._reply = []
            case (SessionStarted() | PermissionDecision() | ToolFinished()
                  | ToolResultsMessage() | ThinkingDelta() | ThinkingSignature() | RedactedThinking()
                  | ToolCallStart() | ToolCallDelta() | ToolCallEnd() | UsageReport() | MessageStop()
                  | HookStarted() | HookFinished() | WebSearchResults() | CompactionStarted()
                  | TodosUpdated() | SessionChanged()):
                pass  # the text format shows only the result (and, verbose, progress on stderr)
            case _:
                assert_never(ev)

    def flush(self) -> None:
        self.out.flush()
        self.err.flush()


class JsonPrinter:
    """One result object, printed when the run ends."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def feed(self, ev: AgentEvent) -> None:
        match ev:
            case RunFinished(result):
                self.out.write(_dump(schema.result_line(result)) + "\n")
            case (SessionStarted() | TurnStarted() | AssistantMessage() | PermissionDecision() | ToolStarted()
                  | ToolFinished() | ToolResultsMessage() | Notice() | ApiRetry() | TextDelta() | ThinkingDelta()
                  | ThinkingSignature() | RedactedThinking() | ToolCallStart() | ToolCallDelta() | ToolCallEnd()
                  | UsageReport() | MessageStop() | HookStarted() | HookFinished() | SubagentEvent()
                  | WebSearchResults() | CompactionStarted() | CompactBoundary() | TodosUpdated()
                  | SessionChanged()):
                pass  # one object at the end: nothing before it
            case _:
                assert_never(ev)

    def flush(self) -> None:
        self.out.flush()


class StreamJsonPrinter:
    """Line-delimited JSON: system/init, assistant and user messages, optional stream_event deltas, result."""

    def __init__(self, out: TextIO, include_partial: bool = False, include_hooks: bool = False) -> None:
        self.out = out
        self.session_id = ""
        self.include_partial = include_partial
        self.include_hooks = include_hooks  # --include-hook-events: hook_started / hook_response lines, as Claude Code
        # The session record a main-agent message was just stored as (its `uuid`, which `rewind_files` and
        # resume take); None, or no source, when nothing is stored: then a fresh uuid.
        self.record_id: Callable[[], str | None] | None = None
        self.partials: dict[str | None, PartialMapper] = {}  # one per stream: the main agent's, each subagent's
        self.message_ids: dict[str | None, str] = {}  # per stream: the id message_start gave the reply under way
        self.model = ""
        self.stop_reason: str | None = None  # the main agent's last reply's, for the result line (Claude Code's)

    def _emit(self, obj: dict[str, Any]) -> None:
        self.out.write(_dump(obj) + "\n")
        self.out.flush()

    def _stream_event(self, raw: list[dict[str, Any]], parent: str | None) -> None:
        for e in raw:
            if e["type"] == "message_start":  # the message's id and model, as the assistant line will carry them
                self.message_ids[parent] = message_id = schema.new_message_id()
                model = {"model": self.model} if parent is None else {}  # a subagent's may differ
                e = {**e, "message": {**e["message"], "id": message_id, **model}}
            self._emit({"type": "stream_event", "event": e, "session_id": self.session_id,
                        "parent_tool_use_id": parent, "uuid": new_uuid()})

    def feed(self, ev: AgentEvent, parent: str | None = None) -> None:
        """`parent`: the Task call whose subagent produced `ev` (Claude Code's `parent_tool_use_id`)."""
        match ev:
            case SubagentEvent(tool_use_id, _, inner):
                if not isinstance(inner, SessionStarted | RunFinished):  # a subagent has no init or result line
                    self.feed(inner, tool_use_id)
            case SessionStarted():
                self.session_id, self.model, self.stop_reason = ev.session_id, ev.model, None
                self._emit(schema.init_line(ev))
            case AssistantMessage(msg, usage, model, stop, _):
                if parent is None:  # a model's own reason only: "cancelled" / "error" are agentcli's
                    self.stop_reason = stop if stop not in ("cancelled", "error") else None
                self._emit(schema.message_line(msg, self.session_id, model=model, usage=usage, stop_reason=stop,
                                               parent_tool_use_id=parent, uuid=self._uuid(parent),
                                               message_id=self.message_ids.pop(parent, None)))
            case ToolResultsMessage(msg):
                self._emit(schema.message_line(msg, self.session_id, parent_tool_use_id=parent,
                                               uuid=self._uuid(parent)))
            case ApiRetry(attempt, max_retries, delay, code, message, status, discarded):
                self._emit({"type": "system", "subtype": "api_retry", "attempt": attempt,
                            "max_retries": max_retries, "retry_delay_ms": int(delay * 1000),
                            "error_status": status, "error": code, "message": message,
                            "discarded_partial": discarded, "session_id": self.session_id, "uuid": new_uuid()})
                if self.include_partial and discarded:
                    self._stream_event(self.partials.setdefault(parent, PartialMapper()).map(ev), parent)
            case Notice(level, text, code):  # a subagent's: with its Task call's id, as its messages
                self._emit({"type": "system", "subtype": "notice", "level": level, "text": text,
                            **({"code": code} if code else {}), "parent_tool_use_id": parent,
                            "session_id": self.session_id, "uuid": new_uuid()})
            case CompactBoundary():
                self._emit(schema.compact_boundary_line(ev, self.session_id))
            case TodosUpdated(todos):
                self._emit(schema.todos_line(todos, self.session_id))
            case SessionChanged() if parent is None:
                self._emit(schema.session_changed_line(ev, self.session_id))
            case HookStarted(hook_id, event, name, _) if self.include_hooks:
                self._emit({"type": "system", "subtype": "hook_started", "hook_id": hook_id, "hook_name": name,
                            "hook_event": event, "session_id": self.session_id, "uuid": new_uuid()})
            case HookFinished(hook_id, event, name, _, exit_code, stdout, stderr, outcome, _) if self.include_hooks:
                self._emit({"type": "system", "subtype": "hook_response", "hook_id": hook_id, "hook_name": name,
                            "hook_event": event, "output": stdout, "stdout": stdout, "stderr": stderr,
                            "exit_code": exit_code, "outcome": outcome, "session_id": self.session_id,
                            "uuid": new_uuid()})
            case WebSearchResults(provider, queries, sources):
                self._emit({"type": "system", "subtype": "web_search", "provider": provider,
                            "queries": list(queries), "sources": [{"title": t, "url": u} for t, u in sources],
                            "parent_tool_use_id": parent, "session_id": self.session_id, "uuid": new_uuid()})
            case RunFinished(result):
                self._emit({**schema.result_line(result), "stop_reason": self.stop_reason})
            case (TurnStarted() | TextDelta() | ThinkingDelta() | ThinkingSignature() | RedactedThinking()
                  | ToolCallStart() | ToolCallDelta() | ToolCallEnd() | UsageReport() | MessageStop()):
                if self.include_partial:
                    self._stream_event(self.partials.setdefault(parent, PartialMapper()).map(ev), parent)
            case PermissionDecision() | ToolStarted() | ToolFinished() | CompactionStarted() | HookStarted() \
                    | HookFinished() | SessionChanged():
                pass  # SessionChanged: a subagent's state is its own, not the session's
            case _:
                assert_never(ev)

    def _uuid(self, parent: str | None) -> str | None:
        return self.record_id() if self.record_id is not None and parent is None else None

    def flush(self) -> None:
        self.out.flush()


def _short(args: dict[str, Any]) -> str:
    for key in ("command", "file_path", "pattern", "path"):
        if key in args:
            text = str(args[key]).replace("\n", " ")
            return text if len(text) <= 80 else text[:77] + "…"
    return ""


def make_printer(fmt: str, out: TextIO, err: TextIO, *, include_partial: bool, verbose: bool,
                 include_hooks: bool = False) -> Printer:
    if fmt == "json":
        return JsonPrinter(out)
    if fmt == "stream-json":
        return StreamJsonPrinter(out, include_partial, include_hooks)
    return TextPrinter(out, err, verbose)
