"""The terminal renderer: turns `AgentEvent`s into rich output that stays in the scrollback.

Assistant markdown is split into blocks as it streams; each complete block is printed once, and only the
open block (its last screenful) is redrawn in a transient `Live` region together with the spinner, so the cost
stays linear in the reply's length. Without a terminal (pipes, golden tests) nothing is redrawn: blocks print
as they complete and the rest on `flush()`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, assert_never

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text

from agentcli.core.compaction import SUMMARY_MARK
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
    TodoItem,
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
from agentcli.llm.messages import Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from agentcli.ui import toolfmt
from agentcli.ui.mdstream import MarkdownStream
from agentcli.visible import inert, visible

if TYPE_CHECKING:
    from rich.live import Live
    from rich.markdown import Markdown

CODE_THEME = "monokai"
REPLAY_LAST = 60  # messages redrawn on resume: a screenful or two, not a long session's whole history
_TODO_MARKS = {"completed": ("☒", "dim strike"), "in_progress": ("◐", "bold"), "pending": ("☐", "")}


def compact_line(ev: CompactBoundary) -> str:
    """The line that ends a compaction: what ran and the tokens before → after."""
    phases = " + ".join(ev.phases) or "nothing to compact"
    return f"✻ Compacted ({phases}): {ev.pre_tokens:,} → {ev.post_tokens:,} tokens"


def todo_list(todos: tuple[TodoItem, ...]) -> Text:
    out = Text("Todos", style="bold")
    for t in todos:
        mark, style = _TODO_MARKS.get(t.status, ("☐", ""))
        out.append(f"\n  {mark} ")
        out.append(inert(t.active_form if t.status == "in_progress" else t.content), style=style)
    if not todos:
        out.append("\n  (empty)", style="dim")
    return out


EMPTY_REPLY = "(the model returned an empty reply)"
WAITING = "Waiting for the model"  # the spinner before a reply's first byte ("Thinking" only with thinking deltas)
SLOW_PROMPT_S = 5.0  # a local server silent this long is evaluating a long prompt (llama.cpp: ~100 tokens/s on CPU)
# Servers on the user's machine (the provider names SessionStarted gives): their silence is prompt evaluation.
LOCAL_PROVIDERS = frozenset({"llamacpp", "ollama", "lmstudio", "vllm", "local"})


class Renderer:
    """Consumes agent events (`feed`) and writes them to `console`; `flush` ends the current run's output.

    `live=None` means: redraw the open block and a spinner only when the console is a terminal.
    """

    def __init__(
        self, console: Console, *, show_thinking: bool = True, live: bool | None = None, fps: float = 12.0
    ) -> None:
        self.console = console
        self.show_thinking = show_thinking
        self.use_live = console.is_terminal and not console.is_dumb_terminal if live is None else live
        self.fps = fps
        self.typeahead = ""
        self._live: Live | None = None
        self._md = MarkdownStream()
        self._streamed_text = False
        self._thinking: list[str] | None = None
        self._need_gap = False
        self._calls: dict[int, str] = {}
        self._running: dict[str, str] = {}
        self._denied: dict[str, str] = {}
        self._interrupted = False
        self._phase = WAITING
        self._started = self._waiting_since = time.monotonic()
        self._local = False  # the session's server is a local one (SessionStarted's provider)
        self._reported_tokens = 0
        self._streamed_chars = 0

    # ---- public -------------------------------------------------------------------------------------------

    def begin_turn(self, phase: str = WAITING) -> None:
        """A prompt was sent: leave a gap under it and start the spinner."""
        self._need_gap = True
        self._interrupted = False
        self._started = time.monotonic()
        self._reported_tokens = 0
        self._streamed_chars = 0
        self._wait(phase)
        self._start_live()

    def under_prompt(self) -> None:
        """The cursor is right under a prompt the user just entered: the next line needs no gap."""
        self._need_gap = False

    def feed(self, event: AgentEvent) -> None:
        match event:
            case TextDelta(text):
                self._text(text)
            case ThinkingDelta(text):
                self._thinking_text(text)
            case ToolCallDelta(_index, arguments):
                self._streamed_chars += len(arguments)
            case SessionStarted(provider=provider):
                self._local = provider in LOCAL_PROVIDERS
            case ThinkingSignature() | ToolCallEnd() | ToolResultsMessage():
                pass
            case RedactedThinking():
                self._close_text()
            case ToolCallStart(index, _id, name):
                self._close_text()
                self._calls[index] = name
                self._phase = f"Preparing {name}"
            case UsageReport(usage):
                self._reported_tokens = max(self._reported_tokens, usage.output_tokens)
            case ApiRetry():
                self._retry(event)
            case MessageStop():
                self._close_text()
            case TurnStarted():
                self._calls.clear()
                self._streamed_text = False
                self._wait(WAITING)
                self._start_live()
            case AssistantMessage():
                self._assistant(event)
            case PermissionDecision():
                if event.behavior == "deny":
                    self._denied[event.tool_use_id] = event.reason or f"denied by {event.by}"
            case ToolStarted(tool_use_id, name, args):
                self._running[tool_use_id] = name
                self._phase = f"Running {name}({toolfmt.key_argument(name, args)[:40]})"
            case ToolFinished():
                self._tool_finished(event)
            case Notice(level, text):
                self._print_item(Text(inert(("⚠ " if level == "warning" else "ℹ ") + text), style=_NOTICE[level]))
            case CompactionStarted(_, reason, pre):
                why = {"overflow": "the provider said the prompt is too long", "threshold": "the context is nearly "
                       "full", "manual": "/compact"}.get(reason, reason)
                self._print_item(Text(f"✻ Compacting the conversation ({why}) · {pre:,} tokens…", style="cyan"))
                self._phase = "Compacting"
            case CompactBoundary():
                self._print_item(Text(compact_line(event), style="cyan"))
                self._wait(WAITING)
            case TodosUpdated(todos):
                self._print_item(todo_list(todos))
            case WebSearchResults(provider, queries, sources):
                self._print_item(Text(inert(toolfmt.web_sources(provider, queries, sources)), style="dim"))
            case HookStarted(_, _, name, _):
                self._phase = f"Running {name} hook"
            case HookFinished(_, _, name, _, _, _, stderr, outcome, _) if outcome == "blocking":
                why = stderr.strip().splitlines()[0][:200] if stderr.strip() else "blocked"
                self._print_item(Text(inert(f"  ⎿ {name} hook: {why}"), style="dim"))
            case HookFinished():
                pass
            case SessionChanged():
                pass  # the status line shows the state; the command that changed it said so
            case SubagentEvent():
                agent, _, inner = event.innermost()
                self._subagent(agent, inner)
            case RunFinished(result):
                self._close_text()
                if result.is_error:
                    self._run_error(result.error_code, result.error_message or result.result)
                self.flush()
            case _:
                assert_never(event)

    def _subagent(self, agent: str, ev: AgentEvent) -> None:
        """A subagent at work: one dim line per tool call it makes (nested ones named with their path), its
        denials, its notices (as the parent's, marked as its own: never silent), and what it is doing in the
        spinner; its text stays in its transcript."""
        match ev:
            case ToolStarted(_, name, args):
                self._phase = f"{agent}: {name}"
                key = toolfmt.key_argument(name, args)[:60]
                self._print_item(Text(visible(f"  ⎿ [{agent}] {name}({key})"), style="dim"))
            case PermissionDecision(behavior="deny", tool_name=name, reason=reason):
                self._print_item(Text(inert(f"  ⎿ [{agent}] {name} denied: {reason or ''}"), style="dim"))
            case TurnStarted():
                self._phase = f"{agent}: thinking"
            case CompactBoundary():
                self._print_item(Text(f"  ⎿ [{agent}] {compact_line(ev)}", style="dim"))
            case (CompactionStarted() | TodosUpdated()):
                self._phase = f"{agent}: compacting" if isinstance(ev, CompactionStarted) else self._phase
            case Notice(level, text):
                mark = "⚠ " if level == "warning" else "ℹ "
                self._print_item(Text(inert(f"{mark}[subagent {agent}] {text}"), style=_NOTICE[level]))
            case (PermissionDecision() | SessionStarted() | AssistantMessage() | ToolFinished() | ToolResultsMessage()
                  | RunFinished() | HookStarted() | HookFinished() | TextDelta() | ThinkingDelta()
                  | ThinkingSignature() | RedactedThinking() | ToolCallStart() | ToolCallDelta() | ToolCallEnd()
                  | UsageReport() | ApiRetry() | MessageStop() | WebSearchResults() | SessionChanged()):
                pass  # its text and results stay in its transcript; the parent's line shows the outcome
            case SubagentEvent():
                pass  # innermost() unwrapped it
            case _:
                assert_never(ev)

    def flush(self) -> None:
        """Print whatever is still open and stop redrawing (end of a run, or before an approval prompt)."""
        self._close_text()
        self._close_thinking()
        self._stop_live()

    def pause(self) -> None:
        """Stop the live region so another prompt (an approval) owns the bottom of the screen."""
        self._stop_live()

    def resume(self) -> None:
        self._start_live()

    def notice(self, text: str, style: str = "dim", *, soft_wrap: bool = False) -> None:
        """A line from the front end itself (slash command output, `!cmd` results). `soft_wrap`: the terminal
        wraps it, not rich, so a long URL stays one line to copy."""
        self._print_item(Text(text, style=style), soft_wrap=soft_wrap)

    def interrupted(self) -> None:
        if not self._interrupted:
            self._interrupted = True
            self.flush()
            self._print_item(Text("  ⎿ Interrupted · what should the agent do instead?", style="yellow"))

    def user_message(self, text: str) -> None:
        """A user prompt as it appears in the scrollback (used when replaying a stored session)."""
        line = Text("› ", style="bold")
        line.append(text)
        self._print_item(line)

    def shell_output(self, command: str, status: int, output: str) -> None:
        """A `!command` the user ran and the end of its output (live, and again on resume)."""
        shown = output.rstrip("\n").splitlines()
        body = "\n".join(shown[-20:]) if shown else "(no output)"
        if len(shown) > 20:
            body = f"… {len(shown) - 20} lines above\n{body}"
        self.notice(f"$ {command}" + (f"  (exit status {status})" if status else ""), style="bold")
        self._print_item(Text(inert(body), style="red" if status else ""))

    def replay(self, messages: Iterable[Message], edited: dict[str, dict[str, Any]] | None = None,
               last: int | None = REPLAY_LAST) -> None:
        """Rebuild the screen of a stored session by feeding its (`last`) messages through the same paths.
        `edited`: tool calls the user changed at the approval prompt (tool_use_id → the input that ran)."""
        pending: dict[str, ToolUseBlock] = {}
        shown = list(messages)
        if last is not None and len(shown) > last:
            earlier = shown[: len(shown) - last]
            pending = {b.id: b for m in earlier for b in m.content if isinstance(b, ToolUseBlock)}
            if earlier[0].role == "user" and earlier[0].text.startswith(SUMMARY_MARK):  # loaded from a compaction
                line = (f"✻ Earlier conversation compacted · {len(earlier) - 1:,} messages since then not shown "
                        "(the agent still has them and the summary; /context)")
            else:
                line = f"… {len(earlier):,} earlier messages (the agent still has them; /context)"
            self._print_item(Text(line, style="dim"))
            shown = shown[len(earlier) :]
        for msg in shown:
            for block in msg.content:
                self._replay_block(msg, block, pending, edited or {})
            self.flush()

    def _replay_user_text(self, text: str) -> None:
        """What the user saw: their prompt and `!cmd` output, not the wording the model reads."""
        from agentcli.core.interrupts import INTERRUPTED
        from agentcli.ui.attach import is_attachment, parse_shell_context

        shell = parse_shell_context(text)
        if shell is not None:
            self.shell_output(*shell)
        elif text.strip() == INTERRUPTED:  # the marker the model reads after a stopped turn, not a prompt
            self._print_item(Text("⎿ interrupted", style="dim"))
        elif not is_attachment(text):
            self.user_message(text)

    # ---- text and thinking --------------------------------------------------------------------------------

    def _text(self, text: str) -> None:
        text = inert(text)  # the model's own text must not drive the terminal (erase lines, fake a prompt)
        self._close_thinking()
        self._streamed_text = True
        self._streamed_chars += len(text)
        self._phase = "Writing"
        for block in self._md.feed(text):
            self._print_md(block)

    def _close_text(self) -> None:
        rest = self._md.close()
        if rest is not None:
            self._print_md(rest)

    def _print_md(self, block: str) -> None:
        self._gap()
        self.console.print(Trimmed(markdown(block)))
        self._need_gap = True

    def _thinking_text(self, text: str) -> None:
        text = inert(text)
        self._streamed_chars += len(text)
        self._phase = "Thinking"  # only now: thinking deltas arrive
        if not self.show_thinking:
            return
        if self._thinking is None:
            self._close_text()
            self._gap()
            self.console.print(Text("✻ Thinking…", style="dim italic"))
            self._thinking = []
        *complete, last = text.split("\n")
        for piece in complete:
            self._thinking.append(piece)
            self.console.print(Text("".join(self._thinking), style="dim italic"))
            self._thinking.clear()
        if last:
            self._thinking.append(last)
        self._need_gap = True

    def _close_thinking(self) -> None:
        if self._thinking is None:
            return
        if self._thinking:
            self.console.print(Text("".join(self._thinking), style="dim italic"))
        self._thinking = None

    # ---- tools, errors, notices ---------------------------------------------------------------------------

    def _tool_finished(self, ev: ToolFinished) -> None:
        self._close_text()
        self._close_thinking()
        self._running.pop(ev.tool_use_id, None)
        width = self.console.width
        denied = self._denied.pop(ev.tool_use_id, None)
        status = "denied" if denied is not None else ("error" if ev.result.is_error else "ok")
        lines = [toolfmt.header(ev.name, ev.input, status, ev.duration_ms, width)]
        if denied is not None:
            lines.extend(toolfmt.preview(ev.name, denied, None, True, width))
        else:
            lines.extend(toolfmt.preview(ev.name, ev.result.content, ev.display, ev.result.is_error, width))
        self._print_item(Group(*lines))
        self._wait(WAITING)

    def _assistant(self, ev: AssistantMessage) -> None:
        if not self._streamed_text and ev.message.text:
            self._text(ev.message.text)
        self._close_text()
        self._streamed_text = False
        if not ev.partial and not ev.message.text.strip() and not ev.message.tool_uses:
            self._print_item(Text(EMPTY_REPLY, style="dim"))  # never silent: Claude Code shows "(no content)"
        if ev.partial and ev.stop_reason == "cancelled":
            self.interrupted()

    def _retry(self, ev: ApiRetry) -> None:
        status = f" {ev.status}" if ev.status is not None else ""
        if ev.discarded:
            self._close_text()
            self._calls.clear()
        cut = " · the reply above broke off and starts over" if ev.discarded else ""
        self._print_item(
            Text(
                f"⚠ API error ({ev.error_code}{status}): {ev.message}{cut} · retrying in {ev.delay_s:.1f}s "
                f"({ev.attempt}/{ev.max_retries})",
                style="yellow",
            )
        )
        self._phase = "Retrying"

    def _run_error(self, code: str | None, message: str) -> None:
        if code == "cancelled":
            self.interrupted()
            return
        label = f"Error [{code}]" if code else "Error"
        self._print_item(Text(inert(f"✗ {label}: {message}"), style="bold red"))

    def _print_item(self, renderable: RenderableType, *, soft_wrap: bool = False) -> None:
        self._close_text()
        self._close_thinking()
        self._gap()
        self.console.print(renderable, soft_wrap=soft_wrap)
        self._need_gap = True

    def _gap(self) -> None:
        if self._need_gap:
            self.console.print()
            self._need_gap = False

    # ---- replay -----------------------------------------------------------------------------------------

    def _replay_block(self, msg: Message, block: Any, pending: dict[str, ToolUseBlock],
                      edited: dict[str, dict[str, Any]]) -> None:
        match block:
            case TextBlock(text) if msg.role == "user" and text.startswith(SUMMARY_MARK):
                self._print_item(Text("✻ Earlier conversation compacted into a summary", style="cyan"))
            case TextBlock(text) if msg.role == "user" and any(isinstance(b, ToolResultBlock) for b in msg.content):
                pass  # a nested memory file appended to tool results: not something the user typed
            case TextBlock(text) if msg.role == "user":
                self._replay_user_text(text)
            case TextBlock(text):
                self._text(text)
                self._close_text()
            case ThinkingBlock(thinking):
                self._thinking_text(thinking)
                self._close_thinking()
            case ToolUseBlock():
                pending[block.id] = block
            case ToolResultBlock(tool_use_id):
                use = pending.pop(tool_use_id, None)
                name, args = (use.name, edited.get(tool_use_id, use.input)) if use else ("tool", {})
                self._tool_finished(ToolFinished(tool_use_id, name, args, block, 0))

    # ---- live region ------------------------------------------------------------------------------------

    def _start_live(self) -> None:
        if not self.use_live or self._live is not None:
            return
        from rich.live import Live

        self._live = Live(
            _LiveView(self),
            console=self.console,
            transient=True,
            auto_refresh=True,
            refresh_per_second=self.fps,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._live.start()

    def _stop_live(self) -> None:
        if self._live is not None:
            live, self._live = self._live, None
            live.stop()

    def refresh(self) -> None:
        """Redraw the live region now (a key was typed ahead)."""
        if self._live is not None:
            self._live.refresh()

    def _wait(self, phase: str) -> None:
        """A request is (about to be) sent: nothing of its reply has arrived yet."""
        self._phase = phase
        self._waiting_since = time.monotonic()

    def _phase_text(self, now: float) -> str:
        """What the spinner says; before the reply's first byte, how long the model has been silent, and for a
        local server that is slow to answer, what it is doing (evaluating the prompt, token by token)."""
        if self._phase != WAITING:
            return f"{self._phase}…"
        waited = now - self._waiting_since
        if self._local and waited >= SLOW_PROMPT_S:
            return f"{WAITING}… evaluating the prompt {waited:.0f}s"
        return f"{WAITING}… {waited:.0f}s"

    def status_text(self) -> Text:
        now = time.monotonic()
        elapsed = now - self._started
        tokens = max(self._reported_tokens, self._streamed_chars // 4)
        shown = f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)
        line = Text(visible(f"{self._phase_text(now)} "), style="bold magenta")  # a tool name: model text
        line.append(f"({elapsed:.0f}s · ↓ {shown} tokens · esc to interrupt)", style="dim")
        return line


_NOTICE = {"info": "dim", "warning": "yellow"}


class _LiveView:
    """What the live region shows: the tail of the open markdown block, the spinner, typed-ahead text.

    The block's complete lines are rendered once per new line and cached; the unfinished line is drawn plain.
    So a redraw for a keystroke or a spinner tick costs almost nothing, however fast the reply streams."""

    def __init__(self, renderer: Renderer) -> None:
        self.r = renderer
        from rich.spinner import Spinner

        self.spinner = Spinner("dots", style="magenta")
        self._key: tuple[int, int, int, int] | None = None
        self._lines: list[list[Segment]] = []

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        md = self.r._md
        partial = md.partial_line()
        block = md.open_lines()
        if block or partial:
            yield from self._block(console, options, block)
            if partial and not (not block and _is_fence(partial)):
                yield Text(partial[-options.max_width :], style="dim" if md.in_fence else "")
        elif self.r._thinking:
            yield Text("".join(self.r._thinking)[-options.max_width :], style="dim italic")
        self.spinner.text = self.r.status_text()
        yield self.spinner
        if self.r.typeahead:
            yield Text("› " + self.r.typeahead.replace("\n", " ⏎ ")[-(options.max_width - 3) :], style="dim")

    def _block(self, console: Console, options: ConsoleOptions, block: list[str]) -> RenderResult:
        room = max(3, (options.height or console.height) - 5)
        key = (id(block), len(block), options.max_width, room)
        if key != self._key:
            lines = block[-room:]
            if lines and self.r._md.in_fence and not _is_fence(lines[0]):
                lines = [block[0] if _is_fence(block[0]) else "```", *lines]
            self._lines = console.render_lines(Trimmed(markdown("\n".join(lines))), options, pad=False) if lines else []
            self._key = key
        new_line = Segment.line()
        for line in self._lines:
            yield from line
            yield new_line


def markdown_warmup() -> None:
    """Import and exercise the markdown stack (markdown-it, pygments, a lexer) ahead of the first reply."""
    import io

    console = Console(file=io.StringIO(), width=80, force_terminal=True)
    console.print(markdown("`x` **y**\n\n```python\nx = 1\n```"))


def markdown(text: str) -> Markdown:
    """rich's Markdown, imported on first use (it pulls in markdown-it and pygments: not for start-up)."""
    from rich.markdown import Markdown

    return Markdown(inert(text), code_theme=CODE_THEME)  # a plan, a reply: the model's text, shown, never obeyed


class Trimmed:
    """A renderable without the blank lines rich puts around lists, quotes and tables (the renderer spaces
    blocks itself). Lines with a background (a code block's padding) are kept."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.renderable, options, pad=False)
        start, end = 0, len(lines)
        keep_bg = console.color_system is not None and not console.no_color
        while start < end and _blank(lines[start], keep_bg):
            start += 1
        while end > start and _blank(lines[end - 1], keep_bg):
            end -= 1
        new_line = Segment.line()
        for line in lines[start:end]:
            yield from line
            yield new_line


def _blank(line: list[Segment], keep_bg: bool) -> bool:
    return all(not seg.text.strip() and not (keep_bg and seg.style and seg.style.bgcolor) for seg in line)


def _is_fence(line: str) -> bool:
    return line.lstrip().startswith(("```", "~~~"))
