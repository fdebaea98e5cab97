"""Turning the event stream into OpenTelemetry spans and metrics.

One span per run (`invoke_agent`), per turn, per model request (`chat MODEL`) and per tool call
(`execute_tool NAME`), with the GenAI semantic conventions' attributes (`gen_ai.*`) where they exist and
`agentcli.*` for the rest. A model request's span is a CLIENT span (the GenAI conventions' kind for a call to a
model server). A subagent's spans hang under its Task call's span and carry its agent name (`gen_ai.agent.name`).
Prompts, tool inputs and outputs are attributes only with `telemetry_log_prompts`, and are redacted either way.

Metrics: the GenAI conventions' `gen_ai.client.token.usage` and `gen_ai.client.operation.duration` histograms
(what dashboards built for any GenAI client read), beside agentcli's own counters (`agentcli.*`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol, assert_never

from opentelemetry import trace
from opentelemetry.metrics import Meter
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

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
from agentcli.llm.messages import Usage

CostFn = Callable[[str, Usage], float]
MAX_TEXT = 8192  # characters of a tool's input or result in a span (with telemetry_log_prompts)


class Flush(Protocol):
    """Sends what is recorded: `begin` when a run ends (without waiting; False if it could not, an earlier flush
    being still under way); called at the exit, it waits until `deadline` at most, and flushes again only when
    `again` (something was recorded since the last flush begun)."""

    def begin(self) -> bool: ...

    def __call__(self, deadline: float, again: bool) -> None: ...


class Instruments:
    """The counters: the SDK's, or the API's no-op ones when metrics are off. (Plain classes here and below: a
    dataclass takes ~0.5 ms to define, parsing its annotations, and these are on telemetry's import path.)"""

    __slots__ = ("cost", "decisions", "duration", "errors", "genai_tokens", "runs", "tokens", "tool_calls")

    def __init__(self, meter: Meter) -> None:
        # The GenAI semantic conventions' client metrics, with their advised bucket boundaries.
        self.genai_tokens = meter.create_histogram(
            "gen_ai.client.token.usage", unit="{token}", description="Measures number of input and output tokens used",
            explicit_bucket_boundaries_advisory=[4.0 ** i for i in range(14)])
        self.duration = meter.create_histogram(
            "gen_ai.client.operation.duration", unit="s", description="GenAI operation duration",
            explicit_bucket_boundaries_advisory=[0.01 * 2 ** i for i in range(14)])
        self.tokens = meter.create_counter("agentcli.token.usage", unit="{token}", description="tokens by type")
        self.cost = meter.create_counter("agentcli.cost.usage", unit="USD", description="cost of model requests")
        self.tool_calls = meter.create_counter("agentcli.tool.calls", description="tool calls by tool and outcome")
        self.decisions = meter.create_counter("agentcli.permission.decisions",
                                              description="decisions by behavior and by whom")
        self.errors = meter.create_counter("agentcli.errors", description="runs that ended in an error, by code")
        self.runs = meter.create_counter("agentcli.runs", description="runs (prompts) started")


class _Trace:
    """The open spans of one agent (the main one, or a subagent under its Task span)."""

    __slots__ = (
        "agent",
        "children",
        "decisions",
        "first_token",
        "model",
        "parent",
        "provider",
        "request",
        "retries",
        "run",
        "started",
        "tools",
        "turn",
    )

    def __init__(self, parent: Span | None, agent: str = "agentcli") -> None:
        self.parent = parent
        self.agent = agent
        self.run: Span | None = None
        self.turn: Span | None = None
        self.request: Span | None = None
        self.model = self.provider = ""
        self.started = 0.0
        self.first_token: float | None = None
        self.retries = 0
        self.tools: dict[str, Span] = {}
        self.decisions: dict[str, PermissionDecision] = {}
        self.children: dict[str, _Trace] = {}


class TelemetryRecorder:
    """An Agent observer: `feed` every event, `close` once (exports what is left, by `deadline` at most)."""

    def __init__(self, tracer: Tracer, instruments: Instruments, flush: Flush, *, cost_fn: CostFn,
                 log_prompts: bool, redact: Callable[[str], str]) -> None:
        self.tracer = tracer
        self.m = instruments
        self._flush = flush
        self._dirty = False  # something recorded since the flush begun when the run ended
        self.cost_fn = cost_fn
        self.log_prompts = log_prompts
        self.redact = redact
        self.main = _Trace(None)
        self.session_id = ""

    def feed(self, event: AgentEvent) -> None:
        if type(event) is TextDelta:  # most of a stream: only the first of a request counts (time to first token)
            if self.main.first_token is None and self.main.request is not None:
                self.main.first_token = time.monotonic()
            return
        self._feed(self.main, event)

    def close(self, deadline: float) -> None:
        """`deadline`: on the `time.monotonic()` clock."""
        self._end_all(self.main)
        self._flush(deadline, self._dirty)

    def _feed(self, t: _Trace, ev: AgentEvent) -> None:
        """One event; `_dirty` is set after the events that start or end a span or add to a metric, and only
        those: an event recording nothing (a notice after the run's end) must not cost the exit a second flush."""
        match ev:
            case TextDelta() | ThinkingDelta() | ToolCallStart():
                if t.first_token is None and t.request is not None:
                    t.first_token = time.monotonic()  # read when the request's span ends
                return
            case SubagentEvent(tool_use_id, agent, inner):
                child = t.children.setdefault(tool_use_id, _Trace(t.tools.get(tool_use_id) or t.turn, agent))
                self._feed(child, inner)
                return
            case RunFinished(result):
                self._dirty = True
                self._end_run(t, result)  # which clears it when it begins the flush
                return
            case SessionStarted():
                self._start_run(t, ev)
            case TurnStarted(n):
                self._start_turn(t, n)
            case ApiRetry(attempt=attempt, error_code=code):
                t.retries += 1
                if t.request is not None:
                    t.request.add_event("retry", {"attempt": attempt, "error.type": code})
            case AssistantMessage():
                self._end_request(t, ev)
            case PermissionDecision():
                t.decisions[ev.tool_use_id] = ev
                self.m.decisions.add(1, {"behavior": ev.behavior, "by": ev.by, "gen_ai.tool.name": ev.tool_name})
            case SessionChanged():
                self._session_changed(t, ev)
            case ToolStarted():
                self._start_tool(t, ev)
            case ToolFinished():
                self._end_tool(t, ev)
            case (ThinkingSignature() | RedactedThinking() | ToolCallDelta() | ToolCallEnd() | UsageReport()
                  | MessageStop() | Notice() | ToolResultsMessage() | HookStarted() | HookFinished()
                  | WebSearchResults() | CompactionStarted() | CompactBoundary() | TodosUpdated()):
                return  # no span or metric of their own (usage comes with the assistant message)
            case _:
                assert_never(ev)
        self._dirty = True

    def _child_of(self, span: Span | None) -> Any:
        return trace.set_span_in_context(span) if span is not None else None

    def _start_run(self, t: _Trace, ev: SessionStarted) -> None:
        if t is self.main:
            self.session_id = ev.session_id
        t.model, t.provider = ev.model, ev.provider
        t.run = self.tracer.start_span(f"invoke_agent {t.agent}", context=self._child_of(t.parent), attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": t.agent,
            "gen_ai.conversation.id": self.session_id or ev.session_id, "gen_ai.provider.name": ev.provider,
            "gen_ai.request.model": ev.model, "agentcli.permission_mode": ev.permission_mode,
            "agentcli.subagent": t is not self.main,
        })
        if t is self.main:
            self.m.runs.add(1, {"gen_ai.provider.name": ev.provider})

    def _session_changed(self, t: _Trace, ev: SessionChanged) -> None:
        """A span event on the run (`session_changed`: what changed, and the state after it). The run's own
        attributes keep the mode and model it started with; the requests after the event name the new model."""
        t.model = ev.model
        if t.run is None:
            return
        t.run.add_event("session_changed", {
            "agentcli.change": ev.what, "agentcli.permission_mode": ev.mode, "gen_ai.request.model": ev.model,
            **({"agentcli.preset": ev.preset} if ev.preset is not None else {}),
        })

    def _start_turn(self, t: _Trace, n: int) -> None:
        if t.turn is not None:
            t.turn.end()
        t.turn = self.tracer.start_span(f"turn {n}", context=self._child_of(t.run),
                                        attributes={"agentcli.turn": n})
        t.request = self.tracer.start_span(f"chat {t.model}", context=self._child_of(t.turn), kind=SpanKind.CLIENT,
                                           attributes={"gen_ai.operation.name": "chat",
                                                       "gen_ai.provider.name": t.provider,
                                                       "gen_ai.request.model": t.model,
                                                       "gen_ai.agent.name": t.agent})
        t.started, t.first_token, t.retries = time.monotonic(), None, 0

    def _end_request(self, t: _Trace, ev: AssistantMessage) -> None:
        span, t.request = t.request, None
        if span is None:
            return
        u = ev.usage
        cost = self.cost_fn(ev.model, u) if t is self.main else 0.0
        attrs: dict[str, Any] = {
            "gen_ai.response.model": ev.model, "gen_ai.response.finish_reasons": [ev.stop_reason],
            "gen_ai.usage.input_tokens": u.input_tokens, "gen_ai.usage.output_tokens": u.output_tokens,
            "gen_ai.usage.cache_read.input_tokens": u.cache_read_tokens,
            "gen_ai.usage.cache_creation.input_tokens": u.cache_write_tokens,
            "agentcli.usage.estimated": u.estimated, "agentcli.retries": t.retries, "agentcli.partial": ev.partial,
        }
        if t is self.main:
            attrs["agentcli.cost_usd"] = cost
        if t.first_token is not None:
            attrs["agentcli.time_to_first_token_ms"] = round((t.first_token - t.started) * 1000, 1)
        if self.log_prompts and ev.message.text:
            attrs["gen_ai.output.text"] = self.redact(ev.message.text)[:4 * MAX_TEXT]
        span.set_attributes(attrs)
        span.end()
        labels = {"gen_ai.request.model": ev.model, "gen_ai.provider.name": t.provider}
        self._genai_metrics(t, ev.model, u, None)
        for kind, n in (("input", u.input_tokens), ("output", u.output_tokens), ("cache_read", u.cache_read_tokens),
                        ("cache_creation", u.cache_write_tokens)):
            if n:
                self.m.tokens.add(n, {**labels, "gen_ai.token.type": kind})
        if cost:
            self.m.cost.add(cost, labels)

    def _genai_metrics(self, t: _Trace, model: str | None, u: Usage | None, error: str | None) -> None:
        """The GenAI conventions' client metrics for one finished (or failed) model request."""
        labels: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": t.provider,
                                  "gen_ai.request.model": t.model}
        if model:
            labels["gen_ai.response.model"] = model
        if error:
            labels["error.type"] = error
        self.m.duration.record(max(0.0, time.monotonic() - t.started), labels)
        if u is not None:
            self.m.genai_tokens.record(u.input_tokens, {**labels, "gen_ai.token.type": "input"})
            self.m.genai_tokens.record(u.output_tokens, {**labels, "gen_ai.token.type": "output"})

    def _start_tool(self, t: _Trace, ev: ToolStarted) -> None:
        decided = t.decisions.pop(ev.tool_use_id, None)
        attrs: dict[str, Any] = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": ev.name,
                                 "gen_ai.tool.call.id": ev.tool_use_id, "gen_ai.agent.name": t.agent}
        if decided is not None:
            attrs |= {"agentcli.decision": decided.behavior, "agentcli.decided_by": decided.by}
        if self.log_prompts:
            import json

            attrs["gen_ai.tool.call.arguments"] = self.redact(json.dumps(ev.input, ensure_ascii=False))[:MAX_TEXT]
        t.tools[ev.tool_use_id] = self.tracer.start_span(f"execute_tool {ev.name}", context=self._child_of(t.turn),
                                                         attributes=attrs)

    def _end_tool(self, t: _Trace, ev: ToolFinished) -> None:
        span = t.tools.pop(ev.tool_use_id, None)
        child = t.children.pop(ev.tool_use_id, None)
        if child is not None:
            self._end_all(child)
        outcome = "error" if ev.result.is_error else "success"
        self.m.tool_calls.add(1, {"gen_ai.tool.name": ev.name, "outcome": outcome})
        if span is None:  # denied, unknown or invalid: decided without running; record it as a finished span
            span = self.tracer.start_span(f"execute_tool {ev.name}", context=self._child_of(t.turn), attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": ev.name,
                "gen_ai.tool.call.id": ev.tool_use_id, "gen_ai.agent.name": t.agent, "agentcli.ran": False})
            decided = t.decisions.pop(ev.tool_use_id, None)
            if decided is not None:
                span.set_attributes({"agentcli.decision": decided.behavior, "agentcli.decided_by": decided.by})
        span.set_attribute("agentcli.duration_ms", ev.duration_ms)
        if self.log_prompts:
            # redacted whole, then cut: a key cut in two first would no longer look like one, and half of it leave
            span.set_attribute("gen_ai.tool.call.result", self.redact(ev.result.content)[:MAX_TEXT])
        if ev.result.is_error:
            span.set_status(Status(StatusCode.ERROR))
        span.end()

    def _end_run(self, t: _Trace, result: Any) -> None:
        if t.request is not None and result.is_error:  # the request failed: its duration counts, with the error
            self._genai_metrics(t, None, None, result.error_code or "error")
            t.request.set_status(Status(StatusCode.ERROR, result.error_message))
        for span in (t.request, t.turn):
            if span is not None:
                span.end()
        t.request = t.turn = None
        if t.run is None:
            return
        u = result.usage
        t.run.set_attributes({
            "gen_ai.usage.input_tokens": u.input_tokens, "gen_ai.usage.output_tokens": u.output_tokens,
            "agentcli.cost_usd": result.total_cost_usd, "agentcli.num_turns": result.num_turns,
            "agentcli.exit_status": result.exit_status, "agentcli.result.subtype": result.subtype,
        })
        if result.is_error:
            t.run.set_status(Status(StatusCode.ERROR, result.error_message))
            t.run.set_attribute("error.type", result.error_code or "error")
            if t is self.main:
                self.m.errors.add(1, {"error.type": result.error_code or "error"})
        t.run.end()
        t.run = None
        if t is self.main and self._flush.begin():  # the run is over: its spans and metrics go out now
            self._dirty = False

    def _end_all(self, t: _Trace) -> None:
        """Spans still open (a run cut short by Esc or a crash of a tool): end them, so they are exported."""
        for child in t.children.values():
            self._end_all(child)
        for span in (*t.tools.values(), t.request, t.turn, t.run):
            if span is not None and span.is_recording():
                span.end()
                self._dirty = True
        t.tools.clear()
        t.request = t.turn = t.run = None
