"""The interactive session: read a prompt, run it through the agent, render the events, repeat.

Start-up shows the prompt before anything heavy loads: the agent (provider, tools, session) is built in the
background and awaited only when the first prompt is sent. A resumed session too: its history is drawn above
the prompt once that is up, then its agent is built (agentcli.ui.resume). While a turn runs, `TurnKeys` owns
the keyboard (Esc / Ctrl-C cancel the task consuming `Agent.run`; the loop keeps the transcript valid).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import os
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import get_app_or_none
from prompt_toolkit.formatted_text import StyleAndTextTuples

from agentcli import paths
from agentcli.errors import AgentCliError
from agentcli.ui.building import PausingApprover, end, make_approver, preload
from agentcli.ui.completion import ReplCompleter
from agentcli.ui.input import CtrlCOnEmpty, make_session
from agentcli.ui.keys import TurnKeys
from agentcli.ui.resumedview import ResumedView
from agentcli.ui.status import MODE_LABELS, Status, next_mode

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from rich.console import Console

    from agentcli.assembly.runtime import Built
    from agentcli.core.events import AgentEvent
    from agentcli.core.loop import Agent
    from agentcli.driver import Driver
    from agentcli.llm.messages import Message
    from agentcli.settings.config import Settings
    from agentcli.ui.render import Renderer

DOUBLE_CTRL_C_S = 2.0
MCP_START_DELAY_S = 0.3


def redraw_status() -> None:
    """Draw the status line again (if the prompt is up), after what it reads has changed."""
    app = get_app_or_none()
    if app is not None:
        app.invalidate()


def run_repl(settings: Settings, initial_prompt: str | None, on_ready: Callable[[], None] | None = None) -> int:
    """The REPL's entry point (called by agentcli.cli); returns the exit status. `on_ready` is called once the
    prompt session is made, just before the first prompt (agentcli.cli.entry resumes the cyclic GC there)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        from agentcli.errors import UsageError

        raise UsageError(
            "the interactive session needs a terminal",
            hint='run one task headless with -p: agentcli -p "task", or pipe it: echo "task" | agentcli -p',
        )
    return asyncio.run(Repl(settings).main(initial_prompt, on_ready))


class Repl:
    """One interactive session. Slash commands and actions act on it only through `ReplHost`
    (agentcli.ui.host), which it implements."""

    def __init__(self, settings: Settings, console: Console | None = None) -> None:
        self.settings = settings
        self._console = console
        self.cwd = settings.cwd
        self.root = settings.project_root
        self.agent: Agent | None = None
        self.built: Built | None = None
        self.driver: Driver | None = None  # runs the turns of `agent`
        self.building: asyncio.Task[Built] | None = None
        self.resumed = ResumedView(self)  # --resume, --continue, /resume: drawn and adopted as the prompt is up
        # A first Ctrl-C on an empty prompt arms the exit; the 2 s for the second one run from when the prompt is
        # back (pre_run), so a slow redraw on a busy machine does not eat the window.
        self._ctrl_c_armed = False
        self._ctrl_c_at = -DOUBLE_CTRL_C_S
        # The person's choice of mode and model while no agent exists (at start, and between releasing one agent
        # and adopting the next): the agent adopts it when it is built, and from then on `mode` and `model` read
        # the agent's session state and options, the one owner. Not a mirror: nothing reads these while an agent
        # is adopted, and nothing writes them then except the hand-over to the next agent (`_hand_over`).
        # (the mode named, else the REPL's own default, auto, which the agent's policy will hold once built)
        named = settings.permissions.mode
        self._mode = named if named != "default" else settings.permissions.fallback
        self.allow_bypass = settings.permissions.mode == "bypassPermissions"
        self._mode_chosen = settings.permissions.mode != "default"
        # until the first prompt builds the agent: a --base-url server's model is named once it is asked
        unnamed = "(default model)"
        if settings.model.base_url:
            from agentcli.redact import public_url  # a user:password or ?key= in the URL stays off the screen

            unnamed = f"(the model at {public_url(settings.model.base_url)})"
        self._model = settings.model.name or unnamed
        self.status = Status(self)  # reads `mode` and `model` below at each draw
        self.context: list[str] = []
        self.pastes: dict[int, str] = {}
        self.turn: asyncio.Task[None] | None = None
        self.keys = TurnKeys(self.cancel_turn, self.cycle_mode, self._typed)
        self.exit_requested = False
        self.completer = ReplCompleter(self.cwd, self._command_names, self._argument_values)
        self.session: PromptSession[str] | None = None

    # rich and the renderer (with the event types) load after the prompt is up: start-up pays only for the prompt.
    @functools.cached_property
    def console(self) -> Console:
        from rich.console import Console

        return self._console or Console(highlight=False, emoji=False)

    @functools.cached_property
    def renderer(self) -> Renderer:
        from agentcli.ui.render import Renderer

        return Renderer(self.console, show_thinking=self.settings.model.show_thinking)

    # ---- main loop ----------------------------------------------------------------------------------------

    async def main(self, initial_prompt: str | None, on_ready: Callable[[], None] | None = None) -> int:
        history = paths.home() / "projects" / paths.project_slug(self.root) / "history"
        self.session = make_session(history, self.completer, self.toolbar, self.cycle_mode, self.pastes)
        if on_ready is not None:
            on_ready()
        self.keys.guard_terminal()
        try:
            return await self._main(initial_prompt)
        finally:
            self.keys.release_terminal()

    async def _main(self, initial_prompt: str | None) -> int:
        assert self.session is not None
        self._banner()
        if self.settings.session.resume is not None or self.settings.session.continue_:
            if not await self.resumed.resolve_at_start():
                return 1
        else:
            asyncio.get_running_loop().call_later(0.05, self.start_building)
        if initial_prompt:
            await self.resumed.shown()
            self.renderer.user_message(initial_prompt)
            await self.submit(initial_prompt)
        while not self.exit_requested:
            typed_line = self._typed_ahead_line()
            if typed_line is not None:
                await self.resumed.shown()
                self.renderer.user_message(typed_line)
                await self.submit(typed_line)
                continue
            try:
                # a resumed session's history is drawn once the prompt is (pre_run: just before its first draw)
                text = await self.session.prompt_async(default=self.keys.typed, pre_run=self._prompt_back)
            except CtrlCOnEmpty:
                if time.monotonic() - self._ctrl_c_at < DOUBLE_CTRL_C_S:
                    break
                self._ctrl_c_armed, self._ctrl_c_at = True, -DOUBLE_CTRL_C_S
                self.renderer.notice("Press Ctrl-C again to exit (Ctrl-D also exits)")
                continue
            except EOFError:
                break
            self.keys.typed = ""
            await self.submit(text)
        await self.close()
        return 0

    def _prompt_back(self) -> None:
        if self._ctrl_c_armed:
            self._ctrl_c_armed, self._ctrl_c_at = False, time.monotonic()
        self.resumed.start()  # a resumed session's history is drawn once the prompt is

    async def submit(self, text: str) -> None:
        """Handle one entered prompt: a slash command, a `!` shell command, or a message for the agent."""
        from agentcli.ui import slash
        from agentcli.ui.attach import expand_pastes

        text = expand_pastes(text, self.pastes).strip()
        if await self.resumed.shown() and text:  # entered before the history came: shown again below it
            self.renderer.user_message(text)
        else:
            self.renderer.under_prompt()
        if not text:
            return
        if self.resumed.active and self.agent is None and self.building is not None and text.startswith(("/", "!")):
            await self.ensure_agent()  # commands act on the resumed session (/cost, /context, /fork, `!` cwd…)
        if text.startswith("/") and slash.is_command(text, self):
            await slash.dispatch(self, text)
        elif text.startswith("!"):
            await self.shell(text[1:].strip())
        else:
            await self.send(text)

    async def send(self, prompt: str | Message) -> None:
        """Send a prompt to the agent (built first if need be) and render the run until it ends or is cancelled."""
        self.renderer.begin_turn()
        await self.guard(asyncio.create_task(self._send(prompt)))
        self.refresh_status()

    async def _send(self, prompt: str | Message) -> None:
        from agentcli.ui.attach import build_message, whole_attachments

        agent = await self.ensure_agent()
        if agent is None:
            return
        if isinstance(prompt, str):
            typed, prompt = prompt, build_message(prompt, self.cwd, self.context, images=agent.accepts_images)
            self.context = []
            for path in whole_attachments(typed, self.cwd):  # an `@file` counts as a read (Edit may change it)
                agent.note_read(path)
        await self._consume(agent, prompt)

    async def guard(self, task: asyncio.Task[Any]) -> bool:
        """Await `task` with the turn's keys live (Esc / Ctrl-C cancel it); False if it was cancelled or failed."""
        self.turn = task
        self.keys.start()
        try:
            await asyncio.wait({task})
        finally:
            self.keys.stop()
            self.turn = None
        if task.cancelled():
            self.renderer.interrupted()
            return False
        err = task.exception()
        self.renderer.flush()
        if err is not None:
            self.error(err)
            return False
        return True

    async def command(self, events: AsyncIterator[AgentEvent], phase: str = "Working") -> None:
        """Render the events of an agent command (`/compact`) like a turn: spinner, Esc cancels."""
        self.renderer.begin_turn(phase)
        await self.guard(asyncio.create_task(self._render(events)))
        self.refresh_status()

    async def _consume(self, agent: Agent, message: Message) -> None:
        assert self.driver is not None and self.driver.agent is agent
        await self._render(self.driver.run(message))

    async def _render(self, events: AsyncIterator[AgentEvent]) -> None:
        from agentcli.core.events import RunFinished, SessionChanged
        from agentcli.driver.results import is_stopped

        renderer = self.renderer
        breath = time.monotonic()
        try:
            async for event in events:
                if type(event) is RunFinished and is_stopped(event.result):
                    renderer.interrupted()  # Esc: the driver stopped the turn (its result is for other front ends)
                    continue
                renderer.feed(event)
                if type(event) is SessionChanged:
                    redraw_status()  # it reads the mode and model from the agent, which the event reports on
                # A fast stream can arrive already buffered, so nothing here would suspend: let the loop see
                # the keyboard (Esc) at least every 10 ms.
                if time.monotonic() - breath > 0.01:
                    await asyncio.sleep(0)
                    breath = time.monotonic()
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()

    def cancel_turn(self) -> None:
        """Esc / Ctrl-C: a turn of the agent is stopped by its driver (the transcript kept valid); anything else
        the REPL waits on (a build, `!cmd`, /compact) is cancelled."""
        if self.driver is not None and self.driver.running:
            self.driver.interrupt()
        elif self.turn is not None and not self.turn.done():
            self.turn.cancel()

    async def shell(self, command: str) -> None:
        """`!cmd`: run it here, show its output, and hand that output to the model with the next message."""
        from agentcli.ui.attach import run_shell, shell_context, shell_tool_context

        if not command:
            self.renderer.notice("Usage: !command — runs it in your shell; its output goes to the next message")
            return
        agent = self.agent
        cwd = agent.shell_cwd if agent is not None and agent.shell_cwd else self.cwd
        self.renderer.begin_turn(f"Running {command[:40]}")
        scope = agent.shell_scope if agent is not None else shell_tool_context(self.settings)
        task = asyncio.create_task(run_shell(command, cwd, scope))
        if not await self.guard(task):
            return
        status, output = task.result()
        self.renderer.shell_output(command, status, output)
        self.context.append(shell_context(command, status, output))

    # ---- the agent ----------------------------------------------------------------------------------------

    def cancel_build(self) -> None:
        if self.building is not None:
            self.building.cancel()
            self.building = None

    def put_back(self, text: str) -> None:
        self.keys.typed = text

    def start_building(self) -> None:
        if self.agent is None and self.building is None:
            self.building = asyncio.create_task(self._build())
            self.building.add_done_callback(self._built_in_background)

    def _built_in_background(self, task: asyncio.Task[Built]) -> None:
        """A fresh session's agent is adopted at the first prompt (a failed build is said then), but the status
        line tells at once what it will be: the model the server serves (not its URL), and the context the
        system prompt and tools already fill (not "ctx 0")."""
        if task.cancelled() or task.exception() is not None or self.agent is not None:
            return
        agent = task.result().agent
        self._model = agent.model  # what the status line shows until that agent is adopted
        with contextlib.suppress(Exception):  # a catalog problem must not break the status line
            self.status.context_window = agent.options.context_window_fn(agent.options.model)
            self.status.context_tokens = agent.context_tokens()
        app = get_app_or_none()
        if app is not None:
            app.invalidate()

    async def _build(self) -> Built:
        await asyncio.to_thread(preload, self.settings)
        self._show_branch()
        from agentcli.assembly.runtime import build

        # MCP servers start once the prompt is up (the SDK import and server processes take CPU), and no prompt
        # waits for them unless the user set a grace: their tools arrive when they are ready
        grace = 0.0 if self.settings.mcp.grace_s is None else self.settings.mcp.grace_s
        mcp = dataclasses.replace(self.settings.mcp, start_delay_s=MCP_START_DELAY_S, grace_s=grace)
        settings = dataclasses.replace(self.settings, mcp=mcp)
        return await build(settings, PausingApprover(self, make_approver(self)))

    async def ensure_agent(self) -> Agent | None:
        """The agent, built now if the background build has not finished; None (error shown) if it fails."""
        if self.agent is not None:
            return self.agent
        if self.building is not None and self.building.cancelled():
            self.building = None
        self.start_building()
        assert self.building is not None
        task = self.building
        try:
            # shielded: Esc cancels the turn that waits, not the build the next prompt will need
            built = await asyncio.shield(task)
        except Exception as err:  # shown, and the next prompt tries again (e.g. after /model)
            if self.building is task:  # (not already shown to another waiter)
                self.building = None
                self.error(err)
            return None
        if self.building is task:  # (not already adopted for another waiter)
            self.building = None
            self.adopt(built)
        return built.agent

    def adopt(self, built: Built) -> None:
        """Make `built` this session's agent (after a build, /clear, /resume or /fork)."""
        from agentcli.driver import Driver

        self.built, self.agent = built, built.agent
        self.driver = Driver(self.settings, built.agent.approver)
        self.driver.adopt(built)
        from agentcli.ui.mcp_commands import attach_elicitor

        attach_elicitor(built.agent)  # MCP servers' questions are asked here, not declined
        if self._mode_chosen:  # chosen here (Shift-Tab, /mode) before this agent existed, or the last agent's
            built.agent.set_mode(self._mode)  # else the policy's, from flags, config and preset
        # The start-up notices go above the prompt now, not with the first turn's events.
        shown, self.resumed.notices = self.resumed.notices, []
        for notice in self.driver.take_notices():
            if notice.level == "warning" and notice.text in shown:  # already shown with the resumed transcript
                shown.remove(notice.text)
                continue
            self.renderer.notice(notice.text, style="yellow" if notice.level == "warning" else "dim")
        self.refresh_status()

    def show_plan(self, plan: str) -> None:
        """ExitPlanMode's plan, as rendered markdown in a frame, above the approval question."""
        from rich.panel import Panel

        from agentcli.ui.render import Trimmed, markdown

        self.renderer.flush()
        self.console.print()
        self.console.print(Panel(Trimmed(markdown(plan)), title="Plan", title_align="left", border_style="cyan"))

    def refresh_status(self) -> None:
        agent = self.agent
        if agent is None:
            return
        # (the mode and model are read from the agent at each draw: see `mode`, `model`)
        self.status.cost_usd = agent.total_cost_usd
        self.status.context_tokens = agent.context_tokens()
        try:
            self.status.context_window = agent.options.context_window_fn(agent.options.model)
        except Exception:  # a catalog problem must not break the status line
            self.status.context_window = None

    async def close(self) -> None:
        self.resumed.cancel()
        building, self.building = self.building, None
        if building is not None and self.resumed.active and self.agent is None and building.done() \
                and not building.cancelled() and building.exception() is None:
            # a resumed session's agent, built but not adopted yet: it ends as before, when it was built ahead
            # of the prompt (SessionEnd hooks, MCP servers, the session file, the resume line)
            self.built, self.agent = building.result(), building.result().agent
        elif building is not None and not building.done():
            building.cancel()
        agent = self.agent
        if agent is None:
            return
        await self.release("prompt_input_exit")
        if not self.settings.session.no_persistence and any(m.role == "assistant" for m in agent.messages):
            self.console.print()
            self.console.print("Resume this session with:", style="dim")
            self.console.print(f"  agentcli --resume {agent.session_id}", highlight=False, markup=False)

    async def release(self, reason: str = "other") -> None:
        """End the current agent (its background shells: nothing a session started outlives it; SessionEnd hooks
        with `reason`; its provider, sandbox proxy and session file) before exit or a rebuild."""
        if self.built is not None:
            await end(self.built, reason)

    async def resume(self, ref: str) -> bool:
        """`/resume`: continue stored session `ref` as `agentcli --resume` does. Now only which session, and that
        it is free (else the current session stays, the error shown); the current agent ends, and once the prompt
        is back its history is drawn above it and its agent built behind it (agentcli.ui.resumedview), keeping
        the model."""
        from agentcli.ui.resume import resolve_stored

        settings_next = self._next_session(resume=ref, fork=False, name=None)
        if self.agent is not None:
            self._hand_over(self.agent)
        try:
            settings = resolve_stored(settings_next)
        except AgentCliError as err:
            self.error(err)
            return False
        self.cancel_build()
        self.resumed.begin()
        await self.release("other")
        self.built = self.agent = self.driver = None
        self.settings = settings
        return True

    def _next_session(self, *, resume: str | None, fork: bool, name: str | None) -> Settings:
        """The settings for another session (resumed, forked or new), keeping the current agent's model."""
        session = dataclasses.replace(self.settings.session, resume=resume, fork=fork, continue_=False,
                                      session_id=None, name=name)
        model = self.settings.model
        if self.agent is not None:
            label = f"{self.agent.options.provider_name}/{self.agent.options.model}"
            model = dataclasses.replace(model, name=label, provider=None)
        return dataclasses.replace(self.settings, session=session, model=model)

    async def rebuild(
        self, *, resume: str | None, fork: bool, name: str | None = None, clear: bool = False
    ) -> bool:
        """A new agent for a new, resumed or forked session (named `name`), keeping the model and mode.
        `clear`: the user asked for a fresh start (/clear), as hooks are told."""
        settings = self._next_session(resume=resume, fork=fork, name=name)
        if self.agent is not None:
            self._hand_over(self.agent)
        self.cancel_build()
        self.renderer.begin_turn()
        try:
            from agentcli.assembly.runtime import build

            built = await build(settings, PausingApprover(self, make_approver(self)))
        except AgentCliError as err:
            self.renderer.flush()
            self.error(err)
            return False
        self.renderer.flush()
        await self.release("clear" if clear else "other")
        if clear:
            built.agent.set_session_start("clear")
        self.adopt(built)
        return True

    # ---- small things -------------------------------------------------------------------------------------

    def cycle_mode(self) -> None:
        self.set_mode(next_mode(self.mode, self.allow_bypass))

    @property
    def mode(self) -> str:
        """The permission mode: the agent's session state's (an approved plan changes it inside a turn), or,
        before an agent exists, the person's choice it will adopt."""
        return self.agent.mode if self.agent is not None else self._mode

    @property
    def model(self) -> str:
        """The model answering: the agent's (a /model switch changes it), or the one it will be built with."""
        return self.agent.model if self.agent is not None else self._model

    def set_mode(self, mode: str) -> None:
        self._mode_chosen = True
        if self.agent is not None:
            self.agent.set_mode(mode)
        else:
            self._mode = mode
        if self.turn is not None:
            self.renderer.notice(f"{MODE_LABELS.get(mode, mode)} on")
        redraw_status()

    def choose_model(self, model: str) -> None:
        """The model the next agent is built with (a /model before the agent exists), for the status line."""
        self._model = model

    def _hand_over(self, agent: Agent) -> None:
        """The agent is about to be replaced (/clear, /resume, /fork): its mode and model are what the person
        has now, and the next agent adopts them (the mode only if the person chose one)."""
        self._mode, self._model = agent.mode, agent.model

    def _show_branch(self) -> None:
        from agentcli.session.layout import git_branch

        self.status.branch = git_branch(self.root)
        app = get_app_or_none()
        if app is not None:
            app.invalidate()

    def toolbar(self) -> StyleAndTextTuples:
        app = get_app_or_none()
        width = app.output.get_size().columns if app is not None else 80
        return list(self.status.fragments(width))

    def error(self, err: BaseException) -> None:
        if isinstance(err, AgentCliError):
            self.renderer.notice(f"✗ {err.one_line()} [{err.code}]", style="bold red")
        else:
            self.renderer.notice(f"✗ internal error: {type(err).__name__}: {err}", style="bold red")

    def _typed_ahead_line(self) -> str | None:
        """A line typed with Enter before the prompt was up (see TurnKeys.take_pending): to be sent as if typed
        at the prompt. What follows it, and an unfinished line, become the next prompt's text."""
        text = self.keys.typed + self.keys.take_pending()
        line, enter, rest = text.partition("\n")
        self.keys.typed = rest if enter else text
        if "renderer" in self.__dict__:  # (not built yet at start-up: rich loads after the first prompt)
            self.renderer.typeahead = self.keys.typed  # what the live region shows as typed ahead
        return line if enter and line.strip() else None

    def _typed(self, text: str) -> None:
        self.renderer.typeahead = text
        self.renderer.refresh()

    def _command_names(self) -> list[tuple[str, str]]:
        from agentcli.ui import slash

        return slash.command_names(self)

    def _argument_values(self, command: str) -> Iterable[tuple[str, str]] | None:
        from agentcli.ui import slash

        source = slash.argument_sources(self).get(command)
        return source() if source is not None else None

    def _banner(self) -> None:
        """Two lines written directly (plain ANSI), so the prompt does not wait for rich to load."""
        from agentcli.version import __version__

        colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
        bold, dim, reset = ("\x1b[1m", "\x1b[2m", "\x1b[0m") if colour else ("", "", "")
        sys.stdout.write(
            f"{bold}agentcli {__version__}{reset}{dim} · {self.model} · {self.cwd}{reset}\n"
            f"{dim}/help for commands · !cmd runs a shell command · @path attaches a file · esc interrupts{reset}\n\n"
        )
        sys.stdout.flush()
