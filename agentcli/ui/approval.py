"""The interactive approval prompt: shows exactly what will run (the command, a diff for edits) and takes
one of: yes once; yes and remember (a scope — exact command, command prefix, tool, path glob — and a
duration — this session, this project, everywhere — with the exact rule text shown); no with a reason for
the model; or edit the command / new content and run that instead.

`TerminalApprover` implements agentcli.core.permissions.Approver. A request of kind "plan" (ExitPlanMode)
is answered by `review_plan`: approve and pick the mode to continue in, or keep planning with feedback.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output

from agentcli import paths
from agentcli.core.permissions import Approval, ApprovalRequest
from agentcli.permissions.suggest import EDIT_TOOLS, Suggestion, suggest_rules
from agentcli.visible import hidden_characters, visible

DURATIONS: tuple[tuple[str, str], ...] = (
    ("session", "this session"),
    ("local", "this project"),
    ("user", "everywhere"),
)
_EDIT_FIELD = {"Bash": "command", "Write": "content", "Edit": "new_string"}
_MAX_SHOWN_LINES = 60
_MAX_SHOWN_CHARS = 3000


class TerminalApprover:
    """Asks the person at the terminal. `show_plan` draws a plan (the REPL renders its markdown), plain text
    without it."""

    name = "user"
    interactive = True

    def __init__(
        self,
        project_root: Path,
        *,
        input: Input | None = None,
        output: Output | None = None,
        show_plan: Callable[[str], None] | None = None,
        stop_turn: Callable[[], None] | None = None,
    ) -> None:
        self.project_root = project_root
        self.show_plan = show_plan
        self.stop_turn = stop_turn
        self._session: PromptSession[str] = PromptSession(input=input, output=output)
        self._keys: PromptSession[str] = PromptSession(input=input, output=output)
        self._out = output

    def say(self, text: str) -> None:
        if self._out is not None:
            self._out.write_raw(text.replace("\n", "\r\n") + "\r\n")
            self._out.flush()
        else:
            print(text, flush=True)

    async def ask(self, message: str, default: str = "", multiline: bool = False) -> str:
        return await self._session.prompt_async(message, default=default, multiline=multiline)

    async def choose(self, title: str, options: Sequence[str]) -> int:
        """A numbered menu answered by one key (no Enter); returns the 0-based choice. Esc / Ctrl-C raise
        KeyboardInterrupt, Ctrl-D EOFError; other keys are ignored."""
        self.say(title)
        for i, o in enumerate(options, 1):
            self.say(f"  {i}. {o}")
        answer = await self._keys.prompt_async(f"choice [1-{len(options)}]: ", key_bindings=_one_key(len(options)))
        return int(answer) - 1

    async def approve(self, request: ApprovalRequest) -> Approval:
        if request.kind == "plan":
            return await self.review_plan(request.plan or "")
        try:
            return await self._approve(request)
        except (KeyboardInterrupt, EOFError):
            self._stop_turn()
            return Approval("deny", reason="The user interrupted: they stopped this turn.")

    def _stop_turn(self) -> None:
        """Esc / Ctrl-C at a question stop the whole turn, as they do while the agent works."""
        if self.stop_turn is not None:
            self.stop_turn()

    async def _approve(self, request: ApprovalRequest) -> Approval:
        self.say(self.describe(request))
        suggestions = suggest_rules(request.tool_name, request.input, self.project_root)
        options = ["yes, once", "yes, and remember…", "no, and tell the agent why", "edit, then run"]
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if editor:
            options.append(f"edit in {os.path.basename(editor.split()[0])}, then run")
        who = f"[subagent {visible(request.agent)}] " if request.agent else ""
        choice = await self.choose(f"{who}Allow {visible(request.tool_name)}?", options)
        if choice == 0:
            return Approval("allow")
        if choice == 1:
            return await self._remember(suggestions)
        if choice == 2:
            reason = (await self.ask("tell the agent why (optional): ")).strip()
            return Approval("deny", reason=reason or "The user denied this call.")
        return await self._edit(request, editor if choice == 4 else None)

    async def _remember(self, suggestions: list[Suggestion]) -> Approval:
        which = await self.choose(
            "Remember which rule?", [visible(f"{s.label}:  {', '.join(s.rules)}") for s in suggestions]
        )
        rule = suggestions[which]
        files = {
            "local": paths.project_dir(self.project_root) / "settings.local.toml",
            "user": paths.user_config_file(),
        }
        labels = [f"{label}  ({files[key]})" if key in files else label for key, label in DURATIONS]
        when = await self.choose("For how long?", labels)
        scope = DURATIONS[when][0]
        self.say(visible(f"saving: {', '.join(rule.rules)} → {DURATIONS[when][1]}"))
        return Approval("allow", remember=rule.text, scope=scope)

    async def _edit(self, request: ApprovalRequest, editor: str | None) -> Approval:
        key = _EDIT_FIELD.get(request.tool_name)
        current = request.input.get(key) if key else None
        original = current if isinstance(current, str) else json.dumps(request.input, indent=2, ensure_ascii=False)
        if editor:
            edited = await asyncio.to_thread(_run_editor, editor, original)
        else:
            multiline = "\n" in original or request.tool_name in EDIT_TOOLS
            hint = " (Esc then Enter to finish)" if multiline else ""
            edited = await self.ask(f"edit{hint}:\n" if multiline else "edit: ", default=original, multiline=multiline)
        if key is not None and isinstance(current, str):
            updated = {**request.input, key: edited}
        else:
            try:
                updated = json.loads(edited)
            except json.JSONDecodeError:
                return Approval("deny", reason="The user tried to edit the call but the edit was not valid JSON.")
        if updated == request.input:
            return Approval("allow")
        return Approval("allow", updated_input=updated)

    def describe(self, request: ApprovalRequest) -> str:
        """What will run, exactly: the command, the diff of an edit, the content of a new file. Nothing in it
        reaches the terminal as a control: escape sequences, carriage returns, bidi overrides and invisible
        characters are shown as escapes, and a command's unusual characters are named."""
        lines = [f"── {request.tool_name}{f' (subagent {request.agent})' if request.agent else ''} ──"]
        args = request.input
        if request.tool_name == "Bash":
            command = str(args.get("command", ""))
            lines.append(f"  $ {command}")
            unusual = hidden_characters(command)
            if unusual:
                lines.append(f"  note: the command holds invisible or non-ASCII characters: {', '.join(unusual[:12])}")
        elif request.tool_name in ("Edit", "Write"):
            lines += _diff_lines(request.tool_name, args, self.project_root)
        else:
            dumped = "\n".join(_readable(args))
            if len(dumped) > _MAX_SHOWN_CHARS:  # never cut silently: the end of a call can be what matters
                hidden = len(dumped) - _MAX_SHOWN_CHARS
                dumped = (f"{dumped[: _MAX_SHOWN_CHARS - 1000]} [… {hidden:,} characters not shown: choose "
                          f"\"edit\" to see them all …] {dumped[-1000:]}")
            lines.append(dumped)
            unusual = hidden_characters(json.dumps(args, ensure_ascii=False))
            if unusual:
                lines.append(f"  note: the input holds invisible or non-ASCII characters: {', '.join(unusual[:12])}")
        if request.reason:
            lines.append(f"  why asked: {request.reason}")
        return visible("\n".join(lines))

    async def review_plan(self, plan: str) -> Approval:
        """Show the plan; approve and switch to acceptEdits or default, or keep planning with feedback."""
        try:
            if self.show_plan is not None:
                self.show_plan(plan)
            else:
                self.say(visible("── plan ──\n" + plan))
            choice = await self.choose(
                "Approve this plan?",
                [
                    "yes, and accept edits (acceptEdits)",
                    "yes, and ask before each change (default)",
                    "no, keep planning",
                ],
            )
            if choice == 2:
                feedback = (await self.ask("what should change? ")).strip()
                return Approval("deny", reason=feedback or None)
        except (KeyboardInterrupt, EOFError):
            self._stop_turn()
            return Approval("deny", reason="The user interrupted the plan review.")
        return Approval("allow", mode="acceptEdits" if choice == 0 else "default")


def _one_key(count: int) -> KeyBindings:
    """Keys of a numbered menu: a digit answers at once (and stays shown), Esc / Ctrl-C interrupt, Ctrl-D
    ends, anything else (Enter included) does nothing."""
    kb = KeyBindings()

    @kb.add("<any>")
    def _ignore(event: KeyPressEvent) -> None:
        pass

    def answer(digit: str) -> None:
        @kb.add(digit)
        def _pick(event: KeyPressEvent) -> None:
            event.current_buffer.text = digit
            event.app.exit(result=digit)

    for i in range(1, min(count, 9) + 1):
        answer(str(i))

    @kb.add("escape", eager=True)
    @kb.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        event.app.exit(exception=KeyboardInterrupt())

    @kb.add("c-d")
    def _end(event: KeyPressEvent) -> None:
        event.app.exit(exception=EOFError())

    return kb


def _readable(args: dict[str, Any]) -> list[str]:
    """A call's input as a person reads it: one `name: value` line per argument, a string as it is (its
    controls escaped later with the rest), anything else as JSON. Every argument is shown, none dropped."""
    if not args:
        return ["  (no input)"]
    return [f"  {key}: {value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
            for key, value in args.items()]


def _diff_lines(tool: str, args: dict[str, Any], root: Path) -> list[str]:
    from agentcli.tools.diff import unified_diff

    path = str(args.get("file_path", ""))
    full = Path(path) if os.path.isabs(path) else root / path
    try:
        current = full.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        current = ""
    if tool == "Edit":
        from agentcli.tools.edit import edited_text

        # the whole file before and after, so line numbers and the end of the file are the real ones
        after = edited_text(current, args, full) if current else None
        old, new = ((current, after) if after is not None
                    else (str(args.get("old_string", "")), str(args.get("new_string", ""))))
    else:
        old, new = current, str(args.get("content", ""))
    try:  # named as the tool's result names it: relative to the project when inside it
        name = str(full.resolve().relative_to(root.resolve()))
    except (OSError, ValueError):
        name = str(full)
    text = unified_diff(old, new, name).text or f"(no change to {path})"
    shown = text.splitlines()
    if len(shown) > _MAX_SHOWN_LINES:
        shown = [*shown[:_MAX_SHOWN_LINES], f"… {len(shown) - _MAX_SHOWN_LINES} more lines"]
    return [f"  {path}", *("  " + ln for ln in shown)]


def _run_editor(editor: str, text: str) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write(text)
        name = f.name
    try:
        subprocess.run([*shlex.split(editor), name], check=False)
        with open(name, encoding="utf-8") as f:
            content = f.read()
        # editors add a final newline; a one-line command should stay one line
        return content.rstrip("\n") if "\n" not in text.rstrip("\n") else content
    finally:
        os.unlink(name)
